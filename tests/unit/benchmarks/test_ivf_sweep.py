"""The sweep's exact top 10 (blockwise over a mapped matrix) and its recall count."""

import numpy as np
import pytest

from benchmarks.ivf_sweep import _exact, _ivf, _recall, _reranked


def test_the_blockwise_top_ten_is_the_whole_matrix_top_ten() -> None:
    rng = np.random.default_rng(4)
    vectors = rng.normal(size=(2_345, 8)).astype(np.float32)
    queries = rng.normal(size=(7, 8)).astype(np.float32)
    want = np.argsort(-(queries @ vectors.T), axis=1, kind="stable")[:, :10]
    for block in (100, 1_000, 5_000):  # blocks that split the rows, and one that does not
        assert (_exact(vectors, queries, block=block) == want).all()


def test_recall_counts_the_found_share_and_the_queries_finding_none() -> None:
    exact = np.arange(30).reshape(3, 10)
    labels = exact.copy()
    labels[1, :5] = 100 + np.arange(5)  # half found
    labels[2] = 200 + np.arange(10)  # none found
    assert _recall(labels, exact) == (round((1 + 0.5 + 0) / 3, 4), 1)


def test_reranking_keeps_the_exact_best_ten_of_the_rows_found() -> None:
    rng = np.random.default_rng(5)
    vectors = rng.normal(size=(500, 8)).astype(np.float32)
    queries = rng.normal(size=(3, 8)).astype(np.float32)
    found = np.stack([rng.choice(500, 40, replace=False) for _ in queries])
    found[0, -3:] = -1  # a search that found fewer rows pads with -1
    got, _ = _reranked(vectors, queries, found)
    for i, query in enumerate(queries):
        rows = found[i][found[i] >= 0]
        want = rows[np.argsort(-(vectors[rows] @ query), kind="stable")[:10]]
        assert set(got[i].tolist()) == set(want.tolist())


@pytest.mark.parametrize("codes", ["f16", "sq8", "pq4"])
def test_each_kind_of_codes_builds_lists_that_find_a_row_itself(codes: str) -> None:
    faiss = pytest.importorskip("faiss")
    rng = np.random.default_rng(6)
    vectors = rng.normal(size=(2_000, 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    index, _ = _ivf(faiss, vectors, 8, 2_000, codes)
    assert index.ntotal == 2_000
    _, labels = index.search(vectors[:5], 10, params=faiss.SearchParametersIVF(nprobe=8))
    assert all(row in labels[row] for row in range(5))
