"""An in-memory BM25 index over postings held as numpy arrays.

Why not SurrealDB's: the embedded engine's BM25 scores every posting of
every query term row by row, so common words cost hundreds of ms at 10k
chunks (benchmarks/RESULTS.md). Here a query is a few vectorised adds.
Okapi BM25 with k1 = 1.2, b = 0.75 and the Lucene idf, like the native one.
"""

from collections import Counter
from collections.abc import Sequence

import numpy as np

from adapters.inprocess.analyzer import analyze

__all__ = ["Bm25Postings"]

_K1 = 1.2
_B = 0.75


class _Posting:
    __slots__ = ("docs", "frozen_docs", "frozen_tfs", "tfs")

    def __init__(self) -> None:
        self.docs: list[int] = []
        self.tfs: list[int] = []
        self.frozen_docs: np.ndarray | None = None
        self.frozen_tfs: np.ndarray | None = None

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        if self.frozen_docs is None or len(self.frozen_docs) != len(self.docs):
            self.frozen_docs = np.asarray(self.docs, dtype=np.int64)
            self.frozen_tfs = np.asarray(self.tfs, dtype=np.float32)
        assert self.frozen_tfs is not None
        return self.frozen_docs, self.frozen_tfs


class Bm25Postings:
    """Documents are dense row numbers assigned by the caller, in increasing order."""

    def __init__(self) -> None:
        self._postings: dict[str, _Posting] = {}
        self._lengths: list[int] = []
        self._total_length = 0
        self._lengths_array: np.ndarray | None = None

    @property
    def size(self) -> int:
        return len(self._lengths)

    def add(self, row: int, text: str) -> None:
        if row != len(self._lengths):
            raise ValueError("rows must be added densely in order")
        terms = analyze(text)
        self._lengths.append(len(terms))
        self._total_length += len(terms)
        self._lengths_array = None
        for term, tf in Counter(terms).items():
            posting = self._postings.get(term)
            if posting is None:
                posting = self._postings[term] = _Posting()
            posting.docs.append(row)
            posting.tfs.append(tf)

    def scores(self, query: str, live: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(rows, scores) of rows that match a query term and are ``live``, unsorted."""
        n = len(self._lengths)
        if n == 0:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32)
        if self._lengths_array is None or len(self._lengths_array) != n:
            self._lengths_array = np.asarray(self._lengths, dtype=np.float32)
        avg = max(self._total_length / n, 1e-9)
        norm = _K1 * (1 - _B + _B * self._lengths_array / avg)
        total = np.zeros(n, dtype=np.float32)
        matched = np.zeros(n, dtype=bool)
        for term in set(analyze(query)):
            posting = self._postings.get(term)
            if posting is None:
                continue
            docs, tfs = posting.arrays()
            df = len(docs)
            idf = np.log(1 + (n - df + 0.5) / (df + 0.5))
            # rows within one posting are unique, so fancy-index add is exact
            total[docs] += idf * tfs * (_K1 + 1) / (tfs + norm[docs])
            matched[docs] = True
        rows = np.flatnonzero(matched & live)
        return rows, total[rows]

    def group_stats(
        self, live: np.ndarray, groups: np.ndarray, n_groups: int
    ) -> tuple[int, np.ndarray] | None:
        """What ``group_scores`` needs of the live rows alone: how many groups hold one,
        and each group's length norm. A pass over every row, so the index keeps it per
        filter until a write; None when no group holds a live row."""
        n = len(self._lengths)
        if n == 0 or n_groups == 0:
            return None
        if self._lengths_array is None or len(self._lengths_array) != n:
            self._lengths_array = np.asarray(self._lengths, dtype=np.float32)
        live = live[:n]
        lengths = np.bincount(
            groups[:n][live], weights=self._lengths_array[live], minlength=n_groups
        )
        present = np.bincount(groups[:n][live], minlength=n_groups) > 0
        n_docs = int(present.sum())
        if n_docs == 0:
            return None
        avg = max(float(lengths[present].sum()) / n_docs, 1e-9)
        return n_docs, _K1 * (1 - _B + _B * lengths / avg)

    def group_scores(
        self,
        query: str,
        live: np.ndarray,
        groups: np.ndarray,
        n_groups: int,
        stats: tuple[int, np.ndarray] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """BM25 of groups of rows read as one document each (only ``live`` rows count).

        Term frequencies and lengths are summed per group from the row postings,
        so no second index is kept and hidden rows never leak into a group.
        ``stats``: ``group_stats`` of the same rows, when the caller kept it.
        """
        empty = (np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32))
        if stats is None:
            stats = self.group_stats(live, groups, n_groups)
        if stats is None:
            return empty
        n_docs, norm = stats
        live = live[: len(self._lengths)]
        total = np.zeros(n_groups, dtype=np.float64)
        matched = np.zeros(n_groups, dtype=bool)
        for term in set(analyze(query)):
            posting = self._postings.get(term)
            if posting is None:
                continue
            docs, tfs = posting.arrays()
            keep = live[docs]
            if not keep.any():
                continue
            tf = np.bincount(groups[docs[keep]], weights=tfs[keep], minlength=n_groups)
            hit = tf > 0
            df = int(hit.sum())
            idf = np.log(1 + (n_docs - df + 0.5) / (df + 0.5))
            total[hit] += idf * tf[hit] * (_K1 + 1) / (tf[hit] + norm[hit])
            matched |= hit
        rows = np.flatnonzero(matched)
        return rows, total[rows].astype(np.float32)

    def extend(self, start_row: int, texts: Sequence[str]) -> None:
        for offset, text in enumerate(texts):
            self.add(start_row + offset, text)

    def postings(self) -> list[tuple[str, list[int], list[int]]]:
        """Each term's (docs, tfs) lists, by reference: a snapshot reads them (snapshot_format);
        rows added later only append, so a reader cuts each at its own row count."""
        return [(term, p.docs, p.tfs) for term, p in self._postings.items()]

    def lengths(self, size: int) -> list[int]:
        return self._lengths[:size]

    @classmethod
    def restored(
        cls,
        lengths: np.ndarray,
        terms: Sequence[str],
        offsets: np.ndarray,
        docs: np.ndarray,
        tfs: np.ndarray,
    ) -> "Bm25Postings":
        """Postings as ``postings`` gave them, packed: term n owns ``offsets[n]:offsets[n+1]``."""
        out = cls()
        out._lengths = lengths.tolist()
        out._total_length = int(lengths.sum())
        all_docs, all_tfs = docs.tolist(), tfs.tolist()
        docs64, tfs32 = docs.astype(np.int64), tfs.astype(np.float32)
        bounds = offsets.tolist()
        for n, term in enumerate(terms):
            posting = out._postings[term] = _Posting()
            start, end = bounds[n], bounds[n + 1]
            posting.docs = all_docs[start:end]
            posting.tfs = all_tfs[start:end]
            posting.frozen_docs = docs64[start:end]
            posting.frozen_tfs = tfs32[start:end]
        return out
