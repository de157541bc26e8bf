"""The vector leg past a size: an HNSW graph (faiss, f16 vectors) beside the exact scan.

Why: the exact scan reads every row's vector per query (384 floats x rows), so
it grows with the organisation: ~10 ms per product at 100k rows on this
machine, and two or three products per search. An HNSW walk reads a few
thousand vectors whatever the size. Below ``AnnPolicy.min_rows`` rows the exact scan
stays (it is cheap there and exact); ``benchmarks/ann_recall.py`` measures
where the graph starts to pay and its recall against the exact scan.

Why faiss (``faiss-cpu``): its HNSW takes an ``IDSelectorBitmap`` *inside* the
search, so the caller's filter (visible spaces, recall, the caller's
``filters``, no removed or pending rows) is applied while the graph is walked:
a row the filter refuses is never returned and never takes a result slot, with
no over-fetching. Its scalar quantizer stores f16 vectors without training
(half the memory of f32; with them recall@10 against the exact scan measured
0.999-1.000 at 100k real vectors), and it ships manylinux wheels for CPython
3.11 on x86_64. usearch (2.26) was the other candidate: its Python
``Index.search`` takes no filter or predicate, so a filter would have to be
over-fetching and hoping.

Exactness where it matters:
- rows the filter admits are few (``AnnPolicy.exact_rows``) or a small share of the
  graph: an exact scan over just those rows costs less than a filtered walk
  and is exact, so it is used;
- rows not in the graph yet (the tail written since, or rows still waiting for
  their vector: the graph stops at the first pending row until the tail grows
  past ``_TAIL_MAX``) and rows whose vector changed after they joined
  (``stale``) are scanned exactly and merged;
- the graph's candidates are scored with the graph's own f16 copy of their
  vectors (``scores``), so that a walk never reads the f32 matrix: past the
  threshold the matrix is mapped from the snapshot, and reading ~150 scattered
  rows per query paged in the whole file over a few hundred queries (the
  kernel maps 64 KB around each fault whatever ``madvise`` says), a second
  resident copy of every vector. An f16 cosine differs from the f32 one by
  ~1e-4 (``benchmarks/snapshot_open.py`` measures it); rows the graph does not
  hold current (the tail, stale rows) are scored from the matrix.
Removed rows lose their vector flag, so the bitmap never admits them.
"""

import importlib
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["EPISODE_ROWS", "AnnPolicy", "VectorGraph", "episode_rows"]


@dataclass(frozen=True)
class AnnPolicy:
    """When the graph is built and when a query uses it rather than the exact scan."""

    #: organisations below this many rows keep the exact scan only: measured with
    #: benchmarks/ann_recall, an exact product costs ~8 CPU-ms at 50k rows (two or three
    #: per search) against ~1 ms for a walk, and the graph costs ~0.27 CPU-ms per row to build
    min_rows: int = 50_000
    #: admitted rows at or below this are scanned exactly (a gather + product of ~20k rows)
    exact_rows: int = 20_000
    #: below this share of the graph admitted, a filtered walk visits mostly refused nodes
    min_share: float = 0.05


#: rows past the graph (or whose graph vector is out of date) before they join / it rebuilds
_TAIL_MAX = 4096
_STALE_MAX = 8192
_M = 16
_EF_CONSTRUCTION = 64
#: candidates the walk keeps; raised for a filter that refuses part of the graph
_EF_SEARCH = 256
_EF_MAX = 1024
#: turns the episode leg takes from the graph before averaging their whole episodes
EPISODE_ROWS = 100


class VectorGraph:
    """Rows ``[0, labelled)`` of one organisation's matrix, labelled by row number."""

    def __init__(self, dimension: int, policy: AnnPolicy) -> None:
        self._policy = policy
        # a heavy native import, made when an organisation first needs a graph; its
        # SWIG-made type hints do not match the Python wrappers, so it is used untyped
        faiss: Any = importlib.import_module("faiss")
        self._faiss = faiss
        self._index = faiss.IndexHNSWSQ(
            dimension, faiss.ScalarQuantizer.QT_fp16, _M, faiss.METRIC_INNER_PRODUCT
        )
        self._index.hnsw.efConstruction = _EF_CONSTRUCTION
        self.labelled = 0
        #: rows in the graph whose vector changed since (or arrived after a zero placeholder)
        self.stale: set[int] = set()
        #: snapshot writes reading the graph from a worker thread: it does not grow meanwhile
        #: (rows written then stay in the exactly scanned tail until the write ends)
        self.holds = 0

    @classmethod
    def restored(
        cls, index: Any, policy: AnnPolicy, labelled: int, stale: set[int]
    ) -> "VectorGraph":
        """A graph read back from a snapshot (``graph_file``), labelled up to ``labelled``."""
        graph = cls.__new__(cls)
        graph._policy = policy
        graph._faiss = importlib.import_module("faiss")
        graph._index = index
        index.hnsw.efConstruction = _EF_CONSTRUCTION
        graph.labelled = labelled
        graph.stale = set(stale)
        graph.holds = 0
        return graph

    @property
    def native(self) -> Any:
        """The faiss index (for ``graph_file``: written and read only there)."""
        return self._index

    @property
    def usable(self) -> bool:
        return len(self.stale) <= _STALE_MAX

    def extend(
        self,
        vectors: np.ndarray,
        has_vector: np.ndarray,
        size: int,
        removed: Collection[int] = (),
    ) -> None:
        """Add rows up to the first one still waiting for its vector (all of them once the
        tail passes ``_TAIL_MAX``: a waiting row joins as a zero placeholder, marked stale).
        A ``removed`` row waits for nothing: it joins as zeros the filter never admits."""
        if self.labelled >= size or self.holds:
            return
        waiting = ~has_vector[self.labelled : size]
        gone = [r - self.labelled for r in removed if self.labelled <= r < size]
        if gone:
            waiting[gone] = False
        first = np.flatnonzero(waiting)
        end = size
        if len(first) and size - (self.labelled + int(first[0])) <= _TAIL_MAX:
            end = self.labelled + int(first[0])
        if end <= self.labelled:
            return
        block = np.ascontiguousarray(vectors[self.labelled : end], dtype=np.float32)
        self._index.add(block)
        pending = np.flatnonzero(waiting[: end - self.labelled]) + self.labelled
        self.stale.update(int(r) for r in pending)
        self.labelled = end

    def changed(self, rows: Sequence[int]) -> None:
        """These rows' vectors were (re)written: the graph's copy no longer answers for them."""
        self.stale.update(r for r in rows if r < self.labelled)

    def forget(self, rows: Sequence[int]) -> None:
        """These rows' sources were removed: their graph vectors are zeroed, so a snapshot
        of the graph never carries them (their links stay; the filter never admits them)."""
        inside = [r for r in rows if r < self.labelled]
        if not inside:
            return
        storage = self._faiss.downcast_index(self._index.storage)
        width = int(storage.code_size)
        codes = self._faiss.rev_swig_ptr(storage.codes.data(), storage.codes.size())
        for row in inside:
            codes[row * width : (row + 1) * width] = 0

    def _codes(self) -> np.ndarray:
        """The graph's f16 vectors, row by row (a view: valid until the graph grows)."""
        storage = self._faiss.downcast_index(self._index.storage)
        raw = self._faiss.rev_swig_ptr(storage.codes.data(), storage.codes.size())
        return np.asarray(raw).view(np.float16).reshape(int(storage.ntotal), -1)

    def scores(self, matrix: np.ndarray, rows: np.ndarray, query: np.ndarray) -> np.ndarray:
        """Cosines of ``rows`` (ascending) with ``query``: from the graph's f16 copy where
        it holds the row current, else from ``matrix``."""
        inside = rows < self.labelled
        if self.stale:
            stale = np.fromiter(self.stale, dtype=np.int64, count=len(self.stale))
            inside &= ~np.isin(rows, stale)
        out = np.empty(len(rows), dtype=np.float32)
        if inside.any():
            out[inside] = self._codes()[rows[inside]].astype(np.float32) @ query
        if not inside.all():
            out[~inside] = matrix[rows[~inside]] @ query
        return out

    def _admitted(self, live: np.ndarray) -> np.ndarray:
        inside = np.array(live[: self.labelled], dtype=bool)
        if self.stale:
            inside[np.fromiter(self.stale, dtype=np.int64, count=len(self.stale))] = False
        return inside

    def nearest(
        self,
        matrix: np.ndarray,
        query: np.ndarray,
        live: np.ndarray,
        limit: int,
        cached: Callable[[str, Callable[[], object]], object],
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """At least the ``limit`` best admitted rows (rows, f32 cosine), or None where the
        exact scan is the better choice. ``live``: admitted rows with a vector;
        ``cached(name, compute)``: a value kept with the filter's mask until a write."""
        admitted = cached("ann_admitted", lambda: self._admitted(live))
        assert isinstance(admitted, np.ndarray)
        count = cached("ann_count", lambda: int(np.count_nonzero(admitted)))
        assert isinstance(count, int)
        if count <= self._policy.exact_rows or count < self._policy.min_share * self.labelled:
            return None
        bitmap = cached("ann_bitmap", lambda: np.packbits(admitted, bitorder="little"))
        assert isinstance(bitmap, np.ndarray)
        share = count / max(self.labelled, 1)
        ef = min(_EF_MAX, max(int(_EF_SEARCH / share), 2 * limit))
        selector = self._faiss.IDSelectorBitmap(bitmap)
        params = self._faiss.SearchParametersHNSW(sel=selector, efSearch=ef)
        _, labels = self._index.search(query.reshape(1, -1), min(limit, count), params=params)
        graph_rows = labels[0][labels[0] >= 0]
        # what the graph cannot answer for: the tail past it and rows it holds stale
        extra = [np.flatnonzero(live[self.labelled :]) + self.labelled]
        if self.stale:
            stale = np.fromiter(self.stale, dtype=np.int64, count=len(self.stale))
            extra.append(stale[live[stale]])
        rows = np.unique(np.concatenate([graph_rows.astype(np.int64), *extra]))
        return rows, self.scores(matrix, rows, query)


def episode_rows(
    rows: np.ndarray,
    live: np.ndarray,
    source_codes: np.ndarray,
    members: Mapping[int, list[tuple[int, int]]],
) -> np.ndarray:
    """Every admitted row of the episodes ``rows`` belong to (the episode leg averages
    whole episodes; the graph only says which episodes to average)."""
    out: list[int] = []
    for code in np.unique(source_codes[rows]).tolist():
        out.extend(row for _, row in members[code] if live[row])
    return np.asarray(sorted(out), dtype=np.int64)
