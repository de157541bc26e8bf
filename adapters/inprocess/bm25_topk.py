"""The best ``k`` documents of a BM25 query without scoring every posting (MaxScore).

Why it is built this way: docs/decisions/internals.md#adaptersinprocessbm25_topkpy.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

__all__ = ["K1", "B", "TermPostings", "top_candidates"]

K1 = 1.2
B = 0.75
#: an upper bound is widened by this much so float rounding never cuts a document wrongly
_BOUND_SLACK = 1e-6
#: below this share of the documents touched, candidates are gathered from the postings
#: (a sort of what was touched) rather than by a scan over every document
_SPARSE_SHARE = 16
#: the remaining postings must cost this many times a pruning check to make one
_CHECK_GAIN = 4
#: candidates completed with the remaining terms for the k-th best (lookups: cheap)
_COMPLETED = 2048
#: after a first try, the k-th best is sought again only where the rest's bound is
#: within this factor of it (the first try is seldom more than a few % short)
_RETRY_WITHIN = 1.25
#: candidates at least 1/_DENSE_LOOKUP of a posting's length are looked up through a
#: dense tf column rather than by binary search (``_found``)
_DENSE_LOOKUP = 8
_NO_DOCS = np.empty(0, dtype=np.int64)
_NO_TFS = np.empty(0, dtype=np.float32)


@dataclass(frozen=True, slots=True)
class TermPostings:
    """One query term: ``docs`` sorted and unique, ``tfs`` beside them, ``max_tf``
    at least every one of them. ``extra_docs``/``extra_tfs``: documents scored in
    full always (disjoint from ``docs``; few: the episode leg's partly live ones)."""

    docs: np.ndarray
    tfs: np.ndarray
    idf: float
    max_tf: float
    extra_docs: np.ndarray = field(default_factory=lambda: _NO_DOCS)
    extra_tfs: np.ndarray = field(default_factory=lambda: _NO_TFS)


def _contribution(idf: float, tfs: np.ndarray, norm: np.ndarray) -> np.ndarray:
    # two passes in place, not five temporaries: the full scoring of a common term
    # (100k+ postings at 1M rows) is the turn leg's main cost
    tf = tfs.astype(np.float64)
    result: np.ndarray = tf * (idf * (K1 + 1))
    tf += norm
    result /= tf
    return result


def _add_scores(
    total: np.ndarray, docs: np.ndarray, idf: float, tfs: np.ndarray, norm: np.ndarray
) -> None:
    """``total[docs] +=`` the term's contributions, ``docs`` unique: the same sums, added
    in place (``np.add.at``) without the gather, the temporary and the scatter of
    ``+=`` (each casting the int32 rows again): ~3x faster over a common term's 250k
    postings, the kernel 8-10 % (benchmarks/RESULTS.md)."""
    np.add.at(total, docs, _contribution(idf, tfs, norm[docs]))


def _bound(term: TermPostings, min_norm: float) -> float:
    if len(term.docs) == 0:
        return 0.0
    tf = float(term.max_tf)
    return term.idf * (K1 + 1) * tf / (tf + min_norm) * (1 + _BOUND_SLACK)


def _kth(values: np.ndarray, k: int) -> float:
    return float(np.partition(values, len(values) - k)[len(values) - k])


def top_candidates(
    terms: Sequence[TermPostings],
    norm: np.ndarray,
    min_norm: float,
    k: int,
    admitted: np.ndarray | None = None,
    usable: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(docs, float32 scores) holding every document of the top ``k`` with its exact score.

    ``norm``: each document's length norm (``K1 * (1 - B + B * len / avg)``), ``min_norm``
    at most every admitted one's; ``admitted``: which documents may be returned (None:
    all); ``usable``: which documents of the terms' ``docs`` count (None: all)."""
    total = np.zeros(len(norm), dtype=np.float64)
    touched: list[np.ndarray] = []
    touched_len = 0
    for term in terms:
        if len(term.extra_docs):
            _add_scores(total, term.extra_docs, term.idf, term.extra_tfs, norm)
            touched.append(term.extra_docs)
            touched_len += len(term.extra_docs)
    bounds = [_bound(t, min_norm) for t in terms]
    order = sorted(range(len(terms)), key=lambda i: -bounds[i])
    rest = [0.0] * (len(order) + 1)  # rest[i]: bound of what terms order[i:] can add
    for i in range(len(order) - 1, -1, -1):
        rest[i] = rest[i + 1] + bounds[order[i]]

    def candidates() -> np.ndarray:
        if touched_len * _SPARSE_SHARE < len(total):
            # sort and drop repeats (np.unique hashes: ~3x slower on these sizes)
            found = np.sort(np.concatenate(touched)) if touched else _NO_DOCS
            if len(found) > 1:
                found = found[np.concatenate(([True], found[1:] != found[:-1]))]
        else:
            found = np.flatnonzero(total > 0)  # ~10x faster than on the floats
        return found if admitted is None else found[admitted[found]]

    def check_cost() -> int:
        """About what ``candidates`` and the k-th best cost, in postings read."""
        return min(touched_len * 2, len(total) // 4) + k

    remaining = [0] * (len(order) + 1)  # postings of terms order[i:]
    for i in range(len(order) - 1, -1, -1):
        remaining[i] = remaining[i + 1] + len(terms[order[i]].docs)

    def completed(docs: np.ndarray, start: int) -> np.ndarray:
        """``docs``' scores with the terms ``order[start:]`` added (``total`` unchanged)."""
        out: np.ndarray = total[docs]
        for j in range(start, len(order)):
            term = terms[order[j]]
            if len(term.docs) == 0:
                continue
            found, pos = _lookup(term, docs, usable)
            out[found] += _contribution(term.idf, term.tfs[pos[found]], norm[docs[found]])
        return out

    essential = 0
    cands: np.ndarray | None = None
    kth = -math.inf
    asked = False
    while essential < len(order):
        term = terms[order[essential]]
        if essential > 0 and kth > rest[essential]:
            # a k-th best found earlier holds (exact scores of k documents never change)
            cands = candidates()
            break
        # may the rest be skipped? Worth asking only where the rest costs several times
        # the question (at 100k rows, asking before every term cost 4x the full scoring),
        # and, once asked, again only where a better k-th best could tip the answer
        worth = remaining[essential] > _CHECK_GAIN * check_cost()
        near = not asked or rest[essential] < kth * _RETRY_WITHIN
        if essential > 0 and worth and near:
            asked = True
            cands = candidates()
            if len(cands) >= k:
                # the best by partial score often lack the common terms (a rare word many
                # times in a short turn); completed, a wider set holds documents with both
                m = min(len(cands), max(k, _COMPLETED))
                best = cands[np.argpartition(total[cands], len(cands) - m)[len(cands) - m :]]
                kth = max(kth, _kth(completed(best, essential), k))
                if kth > rest[essential]:
                    break
            cands = None
        docs, tfs = term.docs, term.tfs
        if usable is not None:
            keep = usable[docs]
            docs, tfs = docs[keep], tfs[keep]
        _add_scores(total, docs, term.idf, tfs, norm)
        touched.append(docs)
        touched_len += len(docs)
        essential += 1
    if cands is None:
        cands = candidates()
        return cands, total[cands].astype(np.float32)
    for j in range(essential, len(order)):
        # a candidate that cannot reach the k-th best even with every remaining term
        cands = cands[total[cands] + rest[j] >= kth]
        term = terms[order[j]]
        if len(term.docs) == 0 or len(cands) == 0:
            continue
        found, tfs = _found(term, cands, usable, len(total))
        _add_scores(total, found, term.idf, tfs, norm)
        if len(cands) >= k:
            kth = max(kth, _kth(total[cands], k))
    return cands, total[cands].astype(np.float32)


def _found(
    term: TermPostings, docs: np.ndarray, usable: np.ndarray | None, size: int
) -> tuple[np.ndarray, np.ndarray]:
    """(those of ``docs`` (sorted) the term holds and counts, their tfs), in ``docs``' order.

    Many candidates against a long posting (at 1M rows a common term's ~100k-250k rows
    looked up for ~100k-200k candidates) are read through a dense tf column: one
    scatter of the posting and one gather, against a binary search per candidate
    (~2x the cost there: the tail of the heaviest turn legs). The
    same rows and tfs either way."""
    if len(docs) * _DENSE_LOOKUP < len(term.docs):
        hit, pos = _lookup(term, docs, usable)
        return docs[hit], term.tfs[pos[hit]]
    column = np.zeros(size, dtype=term.tfs.dtype)
    column[term.docs] = term.tfs
    tfs = column[docs]
    hit = tfs > 0  # a posting's tf is at least 1
    if usable is not None:
        hit &= usable[docs]  # the candidates' rows only, not a pass over every row
    return docs[hit], tfs[hit]


def _lookup(
    term: TermPostings, docs: np.ndarray, usable: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """(which of ``docs`` the term's ``docs`` hold and count, where they stand there)."""
    # the documents in the postings' dtype: a mixed one would copy the whole posting
    pos = np.searchsorted(term.docs, docs.astype(term.docs.dtype, copy=False))
    pos = np.minimum(pos, len(term.docs) - 1)
    hit = term.docs[pos] == docs
    if usable is not None:
        hit &= usable[docs]
    return hit, pos
