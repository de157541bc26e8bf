"""An in-memory BM25 index over postings held as numpy arrays.

Why not SurrealDB's: the embedded engine's BM25 scores every posting of
every query term row by row, so common words cost hundreds of ms at 10k
chunks (benchmarks/RESULTS.md). Here a query is a few vectorised adds.
Okapi BM25 with k1 = 1.2, b = 0.75 and the Lucene idf, like the native one.
"""

import struct
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from itertools import pairwise

import msgspec
import numpy as np

from adapters.inprocess.analyzer import analyze
from adapters.inprocess.bm25_topk import K1 as _K1
from adapters.inprocess.bm25_topk import B as _B
from adapters.inprocess.bm25_topk import TermPostings, top_candidates

__all__ = ["Bm25Postings", "GroupTotals", "cut_tail"]


#: appends a posting keeps in its tail (at least) before folding them into its arrays
_TAIL_MIN = 32
_NO_DOCS = np.empty(0, dtype=np.int32)
_NO_TFS = np.empty(0, dtype=np.float32)
#: a tail entry: the row and its term frequency, little-endian int32
_PAIR = struct.Struct("<ii")
_pack = _PAIR.pack


def _fold_at(folded: int) -> int:
    """The tail's size in bytes that folds it: a quarter of the folded rows, 32 at least."""
    return _PAIR.size * max(_TAIL_MIN, folded // 4)


def cut_tail(tail: bytearray | bytes, rows: int) -> tuple[np.ndarray, np.ndarray]:
    """A tail's rows below ``rows`` and their term frequencies (int32, float32).

    Copied first (``bytes``: one copy under the GIL): the writer may append to the tail
    meanwhile, and a view held on it would stop the writer from growing it."""
    pairs = np.frombuffer(bytes(tail), dtype="<i4").reshape(-1, 2)
    n = int(np.searchsorted(pairs[:, 0], rows))
    return pairs[:n, 0].astype(np.int32), pairs[:n, 1].astype(np.float32)


class _Posting(msgspec.Struct, gc=False):
    """One term's rows and term frequencies: compact arrays plus a short tail.

    Why arrays: as Python lists a posting costs ~48 bytes (a list slot and an
    int object per row, a slot per tf), which made the postings the largest
    part of the index (~400 MB per 100k chunks); as int32 + float32 arrays it
    costs 8. New rows are appended to the tail (``(row, tf)`` int32 pairs in a
    ``bytearray``) and folded into new arrays when the tail reaches a quarter of
    them (amortised linear), or when a query reads the term. The arrays are
    replaced, never changed in place, and the tail is rebound, not cleared, so
    a snapshot writer holding the previous one (``parts``) reads a consistent
    view from another thread.

    Why nothing here is seen by the cycle collector (``gc=False``, a ``bytearray``
    tail): an organisation's vocabulary is tens of thousands of postings, and
    as tracked objects with two tail lists each they made every full
    collection walk them, a pause in whatever request it fell on
    (docs/scaling.md). A posting refers to no posting: no cycle.
    """

    base_docs: np.ndarray
    base_tfs: np.ndarray
    tail: bytearray
    #: (rows it covers, the largest tf among them): the top-k bound, kept until a fold
    max_of: tuple[int, float]
    #: the tail's size in bytes that folds it (kept, not worked out on every append)
    fold_at: int

    @classmethod
    def over(cls, base_docs: np.ndarray = _NO_DOCS, base_tfs: np.ndarray = _NO_TFS) -> "_Posting":
        return cls(base_docs, base_tfs, bytearray(), (0, 0.0), _fold_at(len(base_docs)))

    def __len__(self) -> int:
        return len(self.base_docs) + len(self.tail) // _PAIR.size

    def append(self, row: int, tf: int) -> None:
        tail = self.tail
        tail += _pack(row, tf)
        if len(tail) >= self.fold_at:
            self.fold()

    def fold(self) -> None:
        if not self.tail:
            return
        pairs = np.frombuffer(self.tail, dtype="<i4").reshape(-1, 2)
        self.base_docs = np.concatenate([self.base_docs, pairs[:, 0]], dtype=np.int32)
        self.base_tfs = np.concatenate([self.base_tfs, pairs[:, 1]], dtype=np.float32)
        del pairs  # the view on the old tail, before the tail is let go
        self.tail = bytearray()
        self.fold_at = _fold_at(len(self.base_docs))

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        self.fold()
        return self.base_docs, self.base_tfs

    def max_tf(self) -> float:
        """The largest tf of the folded arrays (call after ``arrays``)."""
        covered, largest = self.max_of
        if covered != len(self.base_tfs):
            largest = float(self.base_tfs.max()) if len(self.base_tfs) else 0.0
            self.max_of = (len(self.base_tfs), largest)
        return largest


class Bm25Postings:
    """Documents are dense row numbers assigned by the caller, in increasing order."""

    def __init__(self) -> None:
        self._postings: dict[str, _Posting] = {}
        self._lengths: list[int] = []
        self._total_length = 0
        #: each row's length as float32 (rows ``[0, _filled)`` of a buffer grown by doubling):
        #: made from the list once, then extended by each write, not remade from the
        #: whole list after it (~25 ms at 1M rows, every search after a write)
        self._lengths_buffer = np.empty(0, dtype=np.float32)
        self._filled = 0
        #: the packed arrays a restore mapped from its snapshot (file-backed, not counted
        #: as held memory); each posting's arrays are views into them until it grows
        self._packed: tuple[np.ndarray, np.ndarray] | None = None
        #: restored terms not read or written since, by their bounds in the packed arrays:
        #: a term's ``_Posting`` is made when first used (an open makes none of them)
        self._bounds: dict[str, tuple[int, int]] = {}
        self._mapped = False
        #: (rows, total length, each row's length norm, the smallest): kept until a write
        self._norm: tuple[int, int, np.ndarray, float] | None = None

    @property
    def size(self) -> int:
        return len(self._lengths)

    def add(self, row: int, text: str) -> None:
        if row != len(self._lengths):
            raise ValueError("rows must be added densely in order")
        terms = analyze(text)
        self._lengths.append(len(terms))
        self._total_length += len(terms)
        postings = self._postings
        for term, tf in Counter(terms).items():
            posting = postings.get(term)
            if posting is None:
                posting = self._posting(term)  # a restored term's first use
                if posting is None:
                    posting = postings[term] = _Posting.over()
            posting.append(row, tf)

    def _posting(self, term: str) -> _Posting | None:
        posting = self._postings.get(term)
        if posting is None and term in self._bounds and self._packed is not None:
            start, end = self._bounds.pop(term)
            docs, tfs = self._packed
            posting = self._postings[term] = _Posting.over(docs[start:end], tfs[start:end])
        return posting

    def lengths_array(self) -> np.ndarray:
        """Each row's length (float32), read-only: a view of the buffer, caught up with
        the list (rows are only appended, and a row's length never changes)."""
        n = len(self._lengths)
        if len(self._lengths_buffer) < n:
            grown = np.empty(max(n, 2 * len(self._lengths_buffer)), dtype=np.float32)
            grown[: self._filled] = self._lengths_buffer[: self._filled]
            self._lengths_buffer = grown
        if self._filled < n:
            # through asarray: a slice assignment from a list converts item by item (~3x)
            tail = np.asarray(self._lengths[self._filled : n], dtype=np.float32)
            self._lengths_buffer[self._filled : n] = tail
            self._filled = n
        view = self._lengths_buffer[:n]
        view.flags.writeable = False
        return view

    def _row_norm(self) -> tuple[np.ndarray, float]:
        """Each row's length norm and the smallest: one pass over every row, so kept
        until a write (it cost ~3 ms a search at 1M rows)."""
        n = len(self._lengths)
        kept = self._norm
        if kept is not None and kept[0] == n and kept[1] == self._total_length:
            return kept[2], kept[3]
        avg = max(self._total_length / n, 1e-9)
        norm = _K1 * (1 - _B + _B * self.lengths_array() / avg)
        self._norm = (n, self._total_length, norm, float(norm.min()))
        return norm, float(norm.min())

    def _query_postings(
        self, query: str, n: int
    ) -> Iterator[tuple[_Posting, np.ndarray, np.ndarray, np.float64]]:
        """Each distinct query term's posting, its rows and tfs, and its Lucene idf over
        ``n`` rows (terms no row holds left out)."""
        for term in set(analyze(query)):
            posting = self._posting(term)
            if posting is None:
                continue
            docs, tfs = posting.arrays()
            df = len(docs)
            yield posting, docs, tfs, np.log(1 + (n - df + 0.5) / (df + 0.5))

    def top_scores(self, query: str, live: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """(rows, scores) holding the ``k`` best ``live`` rows of ``scores`` (and maybe
        more), with the same scores: the turn leg's top ``k`` without scoring every
        posting of the common terms (``bm25_topk``)."""
        return self.top_plan(query, live, k)()

    def top_plan(
        self, query: str, live: np.ndarray, k: int
    ) -> Callable[[], tuple[np.ndarray, np.ndarray]]:
        """``top_scores`` in two steps: what it reads is gathered now (postings folded,
        the norm made: this object changes), and the returned call scores over those
        arrays alone, which no write changes in place: it may run on another thread
        while writes land here."""
        n = len(self._lengths)
        if n == 0 or k < 1:
            return lambda: (np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32))
        norm, min_norm = self._row_norm()
        terms = [
            TermPostings(docs, tfs, float(idf), posting.max_tf())
            for posting, docs, tfs, idf in self._query_postings(query, n)
        ]
        admitted = live[:n]
        return lambda: top_candidates(terms, norm, min_norm, k, admitted=admitted)

    def row_posting(self, term: str) -> tuple[np.ndarray, np.ndarray] | None:
        """One term's rows (sorted) and tfs, folded; None when no row holds it."""
        posting = self._posting(term)
        return None if posting is None else posting.arrays()

    def scores(self, query: str, live: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(rows, scores) of rows that match a query term and are ``live``, unsorted."""
        n = len(self._lengths)
        if n == 0:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32)
        norm, _ = self._row_norm()
        total = np.zeros(n, dtype=np.float32)
        matched = np.zeros(n, dtype=bool)
        for _, docs, tfs, idf in self._query_postings(query, n):
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
        filter (moved by writes: ``group_totals``); None when no group holds a live row."""
        return self.group_totals(live, groups, n_groups).stats()

    def group_totals(self, live: np.ndarray, groups: np.ndarray, n_groups: int) -> "GroupTotals":
        """The sums ``group_stats`` is made of (each group's live rows and their length),
        which a write can move row by row (``GroupTotals.moved``)."""
        n = len(self._lengths)
        live = live[:n]
        codes = groups[:n][live]
        lengths = np.bincount(codes, weights=self.lengths_array()[live], minlength=n_groups)
        return GroupTotals(lengths, np.bincount(codes, minlength=n_groups))

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
            posting = self._posting(term)
            if posting is None:
                continue
            docs, tfs = posting.arrays()
            keep = live[docs]
            if not keep.any():
                continue
            tf = np.bincount(groups[docs[keep]], weights=tfs[keep], minlength=n_groups)
            # the arithmetic on the groups the term is in only: one pass over every group
            # per term (the nonzero scan), not one per operation (at 1M rows, ~330k groups,
            # the dense form cost ~60 ms a search)
            hit = np.flatnonzero(tf)
            tf_hit = tf[hit]
            df = len(hit)
            idf = np.log(1 + (n_docs - df + 0.5) / (df + 0.5))
            total[hit] += idf * tf_hit * (_K1 + 1) / (tf_hit + norm[hit])
            matched[hit] = True
        rows = np.flatnonzero(matched)
        return rows, total[rows].astype(np.float32)

    def extend(self, start_row: int, texts: Sequence[str]) -> None:
        for offset, text in enumerate(texts):
            self.add(start_row + offset, text)

    def parts(self) -> list[tuple[str, np.ndarray, np.ndarray, bytearray | bytes]]:
        """Each term's arrays and tail, by reference: a snapshot reads them in a worker
        thread (snapshot_format); the arrays are never changed in place and rows added
        later only append to a tail, so a reader cuts the tail at its row count
        (``cut_tail``)."""
        out: list[tuple[str, np.ndarray, np.ndarray, bytearray | bytes]] = [
            (t, p.base_docs, p.base_tfs, p.tail) for t, p in self._postings.items()
        ]
        if self._bounds and self._packed is not None:
            docs, tfs = self._packed
            for term, (a, b) in self._bounds.items():
                out.append((term, docs[a:b], tfs[a:b], b""))
        return out

    def postings(self) -> list[tuple[str, list[int], list[int]]]:
        """Each term's rows and term frequencies as lists (tests, small indexes)."""
        out = []
        for term, docs, tfs, tail in self.parts():
            tail_docs, tail_tfs = cut_tail(tail, self.size)
            rows = [*docs.tolist(), *tail_docs.tolist()]
            out.append((term, rows, [int(t) for t in [*tfs.tolist(), *tail_tfs.tolist()]]))
        return out

    def memory_bytes(self) -> int:
        """What the postings hold: arrays exactly, tails and the term table estimated."""
        total = 8 * len(self._lengths)
        packed = () if self._packed is None or not self._mapped else self._packed
        total += sum(len(term) + 49 + 80 + 64 for term in self._bounds)  # key, slot, bounds
        for term, posting in self._postings.items():
            for array in (posting.base_docs, posting.base_tfs):
                if not any(array.base is p for p in packed):
                    total += array.nbytes
            # key, dict slot, tail, object
            total += len(posting.tail) + len(term) + 49 + 80 + 56 + 64
        return total

    def mapped_bytes(self) -> int:
        """The packed arrays mapped from a snapshot (resident only as far as read)."""
        if self._packed is None or not self._mapped:
            return 0
        return sum(int(p.nbytes) for p in self._packed)

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
        """Postings as ``parts`` gave them, packed: term n owns ``offsets[n]:offsets[n+1]``.
        Each term's arrays are views into one int32 and one float32 array (no copy each:
        arrays mapped from a file stay mapped)."""
        out = cls()
        out._lengths = lengths.tolist()
        out._total_length = int(lengths.sum())
        docs32 = np.ascontiguousarray(docs, dtype=np.int32)
        tfs32 = np.ascontiguousarray(tfs, dtype=np.float32)
        out._packed = (docs32, tfs32)
        out._mapped = isinstance(docs, np.memmap) and isinstance(tfs, np.memmap)
        bounds = offsets.tolist()
        if len(bounds) != len(terms) + 1 or (bounds and bounds[-1] > len(docs32)):
            raise ValueError("the postings' offsets do not fit their terms and arrays")
        out._bounds = dict(zip(terms, pairwise(bounds), strict=True))
        return out


class GroupTotals:
    """Each group's live rows and their summed length, under one filter.

    Why kept apart from ``group_stats``: the index keeps them per filter, and a write
    moves a few rows in or out of a filter; the totals then move by those rows' own
    lengths (``moved``) instead of being summed again over every row (~20 ms at 1M
    rows, every search after a write). Lengths are whole numbers summed in float64,
    so the sums are the same whatever the order: ``stats`` is what ``group_stats``
    computes from scratch, to the bit."""

    __slots__ = ("_made", "_stats", "counts", "lengths")

    def __init__(self, lengths: np.ndarray, counts: np.ndarray) -> None:
        self.lengths = lengths
        self.counts = counts
        self._stats: tuple[int, np.ndarray] | None = None
        self._made = False

    def moved(
        self,
        entered: np.ndarray,
        left: np.ndarray,
        groups: np.ndarray,
        n_groups: int,
        row_lengths: np.ndarray,
    ) -> "GroupTotals":
        """The totals after rows ``entered`` joined the filter and ``left`` left it (row
        numbers; ``groups``, ``row_lengths``: each row's group and length)."""
        grow = n_groups - len(self.counts)  # groups (sources) new since: none admitted yet
        lengths = np.concatenate([self.lengths, np.zeros(grow)]) if grow else self.lengths.copy()
        counts = (
            np.concatenate([self.counts, np.zeros(grow, np.int64)]) if grow else self.counts.copy()
        )
        for rows, sign in ((entered, 1), (left, -1)):
            if len(rows):
                codes = groups[rows]
                np.add.at(lengths, codes, sign * row_lengths[rows].astype(np.float64))
                np.add.at(counts, codes, sign)
        return GroupTotals(lengths, counts)

    def stats(self) -> tuple[int, np.ndarray] | None:
        """``Bm25Postings.group_stats`` of the same rows (computed once, then kept)."""
        if not self._made:
            self._stats, self._made = self._compute(), True
        return self._stats

    def _compute(self) -> tuple[int, np.ndarray] | None:
        if len(self.counts) == 0:
            return None
        present = self.counts > 0
        n_docs = int(present.sum())
        if n_docs == 0:
            return None
        avg = max(float(self.lengths[present].sum()) / n_docs, 1e-9)
        return n_docs, _K1 * (1 - _B + _B * self.lengths / avg)
