"""The snapshot benchmark's rows past the data: real first, then varied and perturbed."""

import numpy as np
import pytest

from benchmarks._snapshot_rows import chunk_texts, row_vectors

TURNS = [
    "We met Alice in Paris on 3 May. She booked 2 rooms. The hotel was near the river.",
    "I bought 12 apples at the market. Then we drove to Lyon with Bob. It rained all day.",
    "x" * 2500,
]


def test_texts_are_the_corpus_chunks_then_varied_turns_never_repeated() -> None:
    texts = chunk_texts(TURNS, 12)
    assert texts[:5] == [TURNS[0], TURNS[1], "x" * 1000, "x" * 1000, "x" * 500]
    assert len(texts) == 12 and all(len(t) <= 1000 for t in texts)
    assert not set(texts[5:]) & set(TURNS)
    with pytest.raises(ValueError):
        chunk_texts(["one turn only"], 10)


def test_vectors_past_the_pool_are_seeded_unit_perturbations_of_its_rows() -> None:
    rng = np.random.default_rng(1)
    pool = rng.normal(size=(10, 16)).astype(np.float32)
    pool /= np.linalg.norm(pool, axis=1, keepdims=True)
    block = row_vectors(pool, 5, 25, 0.02)
    assert (block[:5] == pool[5:]).all()  # rows of the pool: its vectors unchanged
    copies = block[5:]
    assert np.allclose(np.linalg.norm(copies, axis=1), 1.0, atol=1e-5)
    cosines = (copies * pool[np.arange(10, 25) % 10]).sum(axis=1)
    assert (cosines > 0.9).all() and (cosines < 0.99999).all()
    assert (row_vectors(pool, 5, 25, 0.02) == block).all()  # the same rows every run
