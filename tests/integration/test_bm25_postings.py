"""BM25 postings as arrays with a short list tail: the same scores, a consistent snapshot view.

The postings fold their appended rows into int32/float32 arrays (memory: 8
bytes a posting instead of ~48 as lists). What must not change: the scores,
whatever the fold points; and a snapshot writer holding ``parts`` from
before later writes sees exactly the rows it froze (arrays replaced, never
changed in place; tails rebound, not cleared).
"""

import random

import numpy as np

from adapters.inprocess.bm25 import Bm25Postings, cut_tail

#: words the analyzer keeps whole (letters only, stems to themselves)
_WORDS = [a + b for a in ("bar", "cot", "dim", "fen", "gum") for b in "kptxzmnl"]


def _texts(n: int, seed: int = 5) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 12))) for _ in range(n)]


def _naive(texts: list[str], query: str) -> dict[int, float]:
    """Okapi BM25 (k1 1.2, b 0.75, Lucene idf) straight from the texts."""
    docs = [t.split() for t in texts]
    avg = sum(len(d) for d in docs) / len(docs)
    out: dict[int, float] = {}
    for term in set(query.split()):
        df = sum(term in d for d in docs)
        if df == 0:
            continue
        idf = np.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
        for row, d in enumerate(docs):
            tf = d.count(term)
            if tf:
                norm = 1.2 * (1 - 0.75 + 0.75 * len(d) / avg)
                out[row] = out.get(row, 0.0) + idf * tf * 2.2 / (tf + norm)
    return out


def test_scores_match_bm25_whatever_the_fold_points() -> None:
    texts = _texts(3000)
    index = Bm25Postings()
    live = np.ones(len(texts), dtype=bool)
    for start in range(0, len(texts), 250):  # queries between writes fold some terms early
        index.extend(start, texts[start : start + 250])
        index.scores(f"{_WORDS[1]} {_WORDS[2]}", live[: start + 250])
    queries = [_WORDS[3], f"{_WORDS[5]} {_WORDS[7]} {_WORDS[7]}", f"{_WORDS[39]} {_WORDS[0]}"]
    for query in [*queries, "absent"]:
        rows, scores = index.scores(query, live)
        got = {int(r): float(s) for r, s in zip(rows, scores, strict=True)}
        want = _naive(texts, query)
        assert got.keys() == want.keys()
        for row, score in want.items():
            assert abs(got[row] - score) < 1e-4 * max(1.0, score)


def test_a_frozen_view_keeps_its_rows_while_writes_go_on() -> None:
    texts = _texts(2000, seed=9)
    index = Bm25Postings()
    index.extend(0, texts[:1000])
    frozen = {t: (d, f, tail) for t, d, f, tail in index.parts()}
    before = {t: (d.copy(), f.copy(), *cut_tail(tail, 1000)) for t, (d, f, tail) in frozen.items()}
    assert any(len(tail_docs) for *_, tail_docs, _ in before.values())  # some tails unfolded
    index.extend(1000, texts[1000:])  # folds and appends after the freeze
    index.scores(" ".join(_WORDS), np.ones(2000, dtype=bool))  # folds every term
    for term, (docs, tfs, tail) in frozen.items():
        old_docs, old_tfs, old_tail_docs, old_tail_tfs = before[term]
        assert np.array_equal(docs, old_docs) and np.array_equal(tfs, old_tfs)
        tail_docs, tail_tfs = cut_tail(tail, 1000)
        assert np.array_equal(tail_docs, old_tail_docs)
        assert np.array_equal(tail_tfs, old_tail_tfs)
        assert all(d < 1000 for d in docs)


def test_restored_postings_answer_as_the_live_ones() -> None:
    texts = _texts(1500, seed=13)
    live_index = Bm25Postings()
    live_index.extend(0, texts)
    terms, docs, tfs, offsets = [], [], [], [0]
    for term, rows, counts in live_index.postings():
        terms.append(term)
        docs.extend(rows)
        tfs.extend(counts)
        offsets.append(len(docs))
    restored = Bm25Postings.restored(
        np.asarray(live_index.lengths(1500), dtype=np.int32),
        terms,
        np.asarray(offsets, dtype=np.int64),
        np.asarray(docs, dtype=np.int32),
        np.asarray(tfs, dtype=np.int32),
    )
    live = np.ones(1500, dtype=bool)
    for query in (" ".join(_WORDS[1:4]), _WORDS[30]):
        a_rows, a = live_index.scores(query, live)
        b_rows, b = restored.scores(query, live)
        assert np.array_equal(a_rows, b_rows) and np.allclose(a, b)
    assert restored.memory_bytes() > 0
    restored.extend(1500, [f"{_WORDS[1]} {_WORDS[1]}"])  # a restored index keeps taking rows
    rows, _ = restored.scores(_WORDS[1], np.ones(1501, dtype=bool))
    assert 1500 in rows.tolist()
    # terms never read are not made into postings, yet every term is in what a save reads
    assert len(restored._postings) < len(terms) / 2
    assert sorted(t for t, *_ in restored.parts()) == sorted({*terms})
    live_index.extend(1500, [f"{_WORDS[1]} {_WORDS[1]}"])
    assert sorted(restored.postings()) == sorted(live_index.postings())
    for query in (" ".join(_WORDS[5:9]), _WORDS[1]):
        a_rows, a = live_index.scores(query, np.ones(1501, dtype=bool))
        b_rows, b = restored.scores(query, np.ones(1501, dtype=bool))
        assert np.array_equal(a_rows, b_rows) and np.allclose(a, b)


def test_postings_are_not_walked_by_the_cycle_collector() -> None:
    """Tens of thousands of postings per organisation: as tracked objects every full
    collection walked them all, a pause in whatever request it fell on."""
    import gc

    index = Bm25Postings()
    index.extend(0, _texts(300, seed=3))
    postings = list(index._postings.values())
    assert postings
    assert not any(gc.is_tracked(p) or gc.is_tracked(p.tail) for p in postings)
