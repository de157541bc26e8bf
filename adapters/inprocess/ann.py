"""The vector leg past a size: an inverted-file index (faiss IVF, f16 vectors) beside the
exact scan.

Below ``AnnPolicy.min_rows`` rows the exact scan serves; past it the rows are split into
k-means lists (``lists_for``: ~4 x sqrt of the rows when trained) and a query reads its
``probes`` nearest lists, with the caller's filter applied inside the search
(``IDSelectorBitmap``). Exactness is kept where it matters (few admitted rows, short
answers, the tail and stale rows are scanned exactly), the found rows are scored from the
index's own f16 copy, a restored index maps its lists from the snapshot (``graph_file``)
until a change needs them in memory, and a grown index is retrained in the background
(``graph_retrain``). Why an inverted file, faiss and f16 codes, with the figures:
docs/decisions/ivf-over-hnsw.md.
"""

import importlib
import math
import os
import weakref
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from adapters.inprocess.episode_rows import EpisodeRows

__all__ = [
    "EPISODE_ROWS",
    "REBUILD_GROWTH",
    "AnnPolicy",
    "VectorGraph",
    "episode_rows",
    "lists_for",
    "probes_for",
]


@dataclass(frozen=True)
class AnnPolicy:
    """When the index is built and when a query uses it rather than the exact scan."""

    #: organisations below this many rows keep the exact scan only: measured with
    #: benchmarks/ann_recall, an exact product costs ~8 CPU-ms at 50k rows (two or three
    #: per search) against ~1 ms for an inverted-file search
    min_rows: int = 50_000
    #: admitted rows at or below this are scanned exactly (a gather + product of ~20k rows)
    exact_rows: int = 20_000
    #: below this share of the index admitted, a filtered search reads mostly refused rows
    min_share: float = 0.05
    #: lists a query reads of ~4 x sqrt(rows) (``probes_for``: 1/16 of the lists at 1M
    #: rows, 1/4 at 100k and at 50k). Recall@10 against the exact scan (benchmarks/RESULTS.md):
    #: real MiniLM vectors, 50k rows,
    #: 512 lists, 64 -> 0.978, 128 -> 0.991 (``benchmarks/ann_recall``); 141,900 of
    #: them, 1,024 lists 128 -> 0.9915, 2,048 lists 256 -> 0.9935; the 1M scale store as
    #: it grew (real vectors remembered among its perturbed clusters), 2,048 lists 128
    #: -> 0.980, 4,096 lists 256 -> 0.9925 for the same CPU (``benchmarks/ivf_sweep``)
    probes: int = 256
    #: map a restored index's lists read-only from the snapshot instead of reading them
    #: into memory: ~770 MB less anonymous memory at 1M rows, but each search then
    #: faults in the pages of the lists it reads: search p50 / p95 at 1M 73.3 / 93.8 ms
    #: mapped against 54.2 / 68.6 in memory (measured, idle);
    #: the whole service stays under 3 GiB either way, so memory-bound hosts opt in
    map_lists: bool = False


#: rows past the index (or whose indexed vector is out of date) before they join / it rebuilds
_TAIL_MAX = 4096
_STALE_MAX = 8192
#: the most lists: ~4 x sqrt(1M). Finer lists at the same share read find more: on the
#: 1M scale store 4,096 lists with 256 read found 0.9925 of the exact top 10 against
#: 2,048 with 128 read 0.9795, for 3.1 against 3.3 CPU-ms a query; they train ~4x longer
_LISTS_MAX = 4096
#: faiss's k-means wants >= 39 training rows per list; 50 per list bounds the training
#: sample (100k rows at 2,048 lists: ~12 s on this machine; ~205k at 4,096: the 1M
#: store's retrain on open took 65 s in all, where a snapshot opens in ~5-7 s)
_TRAIN_PER_LIST = 50
#: a restored index whose rows grew this many times past its training is retrained (the
#: lists then double): 512 lists trained at 50k rows still find 0.985 of the top 10 at
#: 1M rows, but a query reads 4x the rows of 2,048 lists (7.4 against 2.0 CPU-ms)
REBUILD_GROWTH = 4
#: rows copied to float32 and added to the lists at a time (a bound on the copy's memory)
_ADD_ROWS = 65_536
#: turns the episode leg takes from the index before averaging their whole episodes
EPISODE_ROWS = 100


def _lists_wanted(rows: int) -> int:
    """The power of two nearest 4 x sqrt(rows), at most ``_LISTS_MAX``."""
    return int(min(2 ** round(math.log2(4 * math.sqrt(max(rows, 1)))), _LISTS_MAX))


def lists_for(rows: int) -> int:
    """The lists for an index trained on ``rows`` rows: the power of two nearest 4 x
    sqrt(rows), at most ``_LISTS_MAX``, with at least ``_TRAIN_PER_LIST`` rows each (one
    list, an exhaustive scan, below that). 50k rows: 512; 100k: 1,024; 1M: 4,096."""
    if rows < 2 * _TRAIN_PER_LIST:
        return 1
    lists = _lists_wanted(rows)
    while lists * _TRAIN_PER_LIST > rows:
        lists //= 2
    return int(lists)


def probes_for(probes: int, lists: int, trained_rows: int) -> int:
    """Lists an open search reads of an index with ``lists`` lists trained on
    ``trained_rows`` rows: ``probes`` of ~4 x sqrt(trained_rows) lists, and the same share
    of an index with fewer: one the training rows bounded (512 lists at 50k rows: 128
    read, as before the lists were made finer), or a snapshot of an earlier release
    (~2 x sqrt(rows) lists), so that a restored index reads as many rows as it did."""
    return min(lists, max(1, math.ceil(probes * lists / _lists_wanted(trained_rows))))


class VectorGraph:
    """Rows ``[0, labelled)`` of one organisation's matrix, labelled by row number.

    (Named for the HNSW graph it replaced: the snapshot file, the index's field and the
    status keep that name; what it holds is an inverted file.)"""

    def __init__(self, dimension: int, policy: AnnPolicy) -> None:
        self._policy = policy
        # a heavy native import, made when an organisation first needs an index; its
        # SWIG-made type hints do not match the Python wrappers, so it is used untyped
        faiss: Any = importlib.import_module("faiss")
        self._faiss = faiss
        self._dimension = dimension
        self._index: Any = None  # made (trained) by the first ``extend``
        self._lists_held: Any = None
        #: the snapshot file the lists are mapped from (an open descriptor), or None
        self.source: int | None = None
        self._close_source: weakref.finalize[..., Any] | None = None
        self.trained_rows = 0
        self.labelled = 0
        #: rows in the index whose vector changed since (or arrived after a zero placeholder)
        self.stale: set[int] = set()
        #: snapshot writes reading the index from a worker thread: it does not grow meanwhile
        #: (rows written then stay in the exactly scanned tail until the write ends)
        self.holds = 0

    @classmethod
    def restored(
        cls,
        index: Any,
        policy: AnnPolicy,
        labelled: int,
        stale: set[int],
        trained_rows: int,
        source: int | None = None,
    ) -> "VectorGraph":
        """An index read back from a snapshot (``graph_file``), labelled up to ``labelled``.
        ``source``: an open descriptor of the file whose lists ``index`` maps (read only);
        the graph owns it from here (closed when the lists are copied into memory, or with
        the graph)."""
        graph = cls.__new__(cls)
        graph._policy = policy
        graph._faiss = importlib.import_module("faiss")
        graph._dimension = int(index.d)
        graph._index = index
        graph._lists_held = None
        graph.trained_rows = trained_rows
        graph.labelled = labelled
        graph.stale = set(stale)
        graph.holds = 0
        graph.source = source
        graph._close_source = None if source is None else weakref.finalize(graph, os.close, source)
        return graph

    @property
    def mapped(self) -> bool:
        """The lists are mapped read-only from a snapshot file, not held in memory."""
        return self.source is not None

    def _thaw(self) -> None:
        """Copy mapped lists into memory, before a write changes them.

        Why they are mapped until then: at 1M rows the lists are ~770 MB of f16 codes
        and ids; mapped, they are file pages the kernel may drop, not anonymous memory,
        and a restored organisation that only answers queries never copies them. The
        first change the mapped file cannot take (rows past the exactly scanned tail, a
        removed source's codes to zero) pays one copy."""
        if self.source is None:
            return
        faiss = self._faiss
        mapped = self._index.invlists
        held = faiss.ArrayInvertedLists(int(self._index.nlist), int(self._index.code_size))
        for number in range(int(self._index.nlist)):
            size = int(mapped.list_size(number))
            if size:
                held.add_entries(number, size, mapped.get_ids(number), mapped.get_codes(number))
        self._index.replace_invlists(held, False)
        self._lists_held = held  # the index does not own them: this reference keeps them
        self.source = None
        if self._close_source is not None:
            self._close_source()

    @property
    def native(self) -> Any:
        """The faiss index (for ``graph_file`` and the footprint; None before training)."""
        return self._index

    @property
    def usable(self) -> bool:
        return len(self.stale) <= _STALE_MAX

    @property
    def lists(self) -> int:
        return 0 if self._index is None else int(self._index.nlist)

    def _train(self, vectors: np.ndarray, fit: np.ndarray) -> None:
        """Lists for the rows ``fit`` (their vectors are real), trained on a fixed sample."""
        faiss = self._faiss
        count = len(fit)
        lists = lists_for(count)
        index = faiss.IndexIVFScalarQuantizer(
            faiss.IndexFlatIP(self._dimension),
            self._dimension,
            lists,
            faiss.ScalarQuantizer.QT_fp16,
            faiss.METRIC_INNER_PRODUCT,
        )
        # codes of the vectors themselves, not of their offsets from a centroid: an f16
        # copy is as exact either way, and a zeroed code (``forget``) then holds nothing
        index.by_residual = False
        index.cp.seed = 1234  # the same rows train the same lists (snapshot tests, reruns)
        if lists > 1:
            size = min(count, _TRAIN_PER_LIST * lists)
            pick = np.random.default_rng(7).choice(count, size, replace=False)
            sample = np.ascontiguousarray(vectors[np.sort(fit[pick])], dtype=np.float32)
        else:
            sample = np.zeros((1, self._dimension), dtype=np.float32)
        index.train(sample)
        index.make_direct_map(True)  # row -> (list, offset): f16 scores and ``forget``
        self._index = index
        self.trained_rows = count

    def extend(
        self,
        vectors: np.ndarray,
        has_vector: np.ndarray,
        size: int,
        removed: Collection[int] = (),
    ) -> None:
        """Add rows up to the first one still waiting for its vector (all of them once the
        tail passes ``_TAIL_MAX``: a waiting row joins as a zero placeholder, marked stale).
        A ``removed`` row waits for nothing: it joins as zeros the filter never admits.
        The first call trains the lists on the rows it adds."""
        if self.labelled >= size or self.holds:
            return
        if self.mapped:
            if size - self.labelled <= _TAIL_MAX:
                return  # the tail is scanned exactly; the mapped lists stay as they are
            self._thaw()
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
        if self._index is None:
            real = has_vector[:end].copy()
            if gone:  # those before ``end`` (a removed row past a waiting one stays out)
                real[[self.labelled + g for g in gone if self.labelled + g < end]] = False
            self._train(vectors, np.flatnonzero(real))
        removed_rows = np.asarray(sorted(self.labelled + g for g in gone), dtype=np.int64)
        if self.labelled == 0:
            self._fill(vectors, end, removed_rows)
        else:
            for start in range(self.labelled, end, _ADD_ROWS):
                block = _rows_f32(
                    vectors, np.arange(start, min(start + _ADD_ROWS, end)), removed_rows
                )
                self._index.add(block)  # ids are positions: rows [start, stop)
        pending = np.flatnonzero(waiting[: end - self.labelled]) + self.labelled
        self.stale.update(int(r) for r in pending)
        self.labelled = end

    def _fill(self, vectors: np.ndarray, end: int, removed_rows: np.ndarray) -> None:
        """Rows ``[0, end)`` into the empty lists just trained, each list allocated once
        at its size, in the layout ``add`` makes (rows ascending within a list, faiss's
        own codes).

        Why not ``add``: it appends row by row, and each list's buffer grows by
        doubling, so the lists held up to twice their codes' bytes (the codes are
        ~770 MB at 1M rows) while the index was built; and the rows are copied to
        float32 a block at a time, not all at once (1.5 GB at 1M rows)."""
        faiss, index = self._faiss, self._index
        lists = np.empty(end, dtype=np.int64)
        for start in range(0, end, _ADD_ROWS):
            block = _rows_f32(vectors, np.arange(start, min(start + _ADD_ROWS, end)), removed_rows)
            _, nearest = index.quantizer.search(block, 1)
            lists[start : start + len(block)] = nearest[:, 0]
        order = np.argsort(lists, kind="stable")
        bounds = np.searchsorted(lists[order], np.arange(int(index.nlist) + 1))
        for number in range(int(index.nlist)):
            rows = np.ascontiguousarray(order[bounds[number] : bounds[number + 1]])
            if len(rows):
                codes = index.sq.compute_codes(_rows_f32(vectors, rows, removed_rows))
                index.invlists.add_entries(
                    number, len(rows), faiss.swig_ptr(rows), faiss.swig_ptr(codes)
                )
        index.ntotal = end
        index.make_direct_map(False)  # the row -> (list, offset) map, made again for them
        index.make_direct_map(True)

    def changed(self, rows: Sequence[int]) -> None:
        """These rows' vectors were (re)written: the index's copy no longer answers for them."""
        self.stale.update(r for r in rows if r < self.labelled)

    def forget(self, rows: Sequence[int]) -> None:
        """These rows' sources were removed: their f16 codes are zeroed, so a snapshot of
        the index never carries them (the filter never admits them)."""
        inside = [r for r in rows if r < self.labelled]
        if not inside or self._index is None:
            return
        self._thaw()
        faiss = self._faiss
        zero = np.zeros(int(self._index.code_size), dtype=np.uint8)
        for row in inside:
            at = self._index.direct_map.get(row)
            self._index.invlists.update_entry(
                faiss.lo_listno(at), faiss.lo_offset(at), row, faiss.swig_ptr(zero)
            )

    def scores(self, matrix: np.ndarray, rows: np.ndarray, query: np.ndarray) -> np.ndarray:
        """Cosines of ``rows`` (ascending) with ``query``: from the index's f16 copy where
        it holds the row current, else from ``matrix``."""
        inside = rows < self.labelled
        if self.stale:
            stale = np.fromiter(self.stale, dtype=np.int64, count=len(self.stale))
            inside &= ~np.isin(rows, stale)
        out = np.empty(len(rows), dtype=np.float32)
        if inside.any():
            held = self._index.reconstruct_batch(np.ascontiguousarray(rows[inside]))
            out[inside] = held @ query
        if not inside.all():
            out[~inside] = matrix[rows[~inside]] @ query
        return out

    def lists_read(self, share: float) -> int:
        """Lists a search reads when its filter admits ``share`` of the indexed rows: an
        open search's (``probes_for``) / ``share``, so that it meets as many admitted rows,
        all of them at the limit."""
        lists = self.lists
        probes = probes_for(self._policy.probes, lists, self.trained_rows)
        return min(lists, max(1, math.ceil(probes / share)))

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
        if self._index is None:
            return None
        admitted = cached("ann_admitted", lambda: self._admitted(live))
        assert isinstance(admitted, np.ndarray)
        count = cached("ann_count", lambda: int(np.count_nonzero(admitted)))
        assert isinstance(count, int)
        if count <= self._policy.exact_rows or count < self._policy.min_share * self.labelled:
            return None
        bitmap = cached("ann_bitmap", lambda: np.packbits(admitted, bitorder="little"))
        assert isinstance(bitmap, np.ndarray)
        lists = int(self._index.nlist)
        probes = self.lists_read(count / max(self.labelled, 1))
        selector = self._faiss.IDSelectorBitmap(bitmap)
        params = self._faiss.SearchParametersIVF(sel=selector, nprobe=probes)
        # twice the rows asked: which of several equal scores a list layout returns first
        # is arbitrary (two indexes trained on other samples answer alike only if the
        # ties at the cut come back whole), and the caller's ``top`` orders them by row
        wanted = min(limit, count)
        _, labels = self._index.search(query.reshape(1, -1), min(2 * limit, count), params=params)
        graph_rows = labels[0][labels[0] >= 0]
        if len(graph_rows) < wanted and probes < lists:
            return None  # the lists read held too few admitted rows: the exact scan answers
        # what the index cannot answer for: the tail past it and rows it holds stale
        extra = [np.flatnonzero(live[self.labelled :]) + self.labelled]
        if self.stale:
            stale = np.fromiter(self.stale, dtype=np.int64, count=len(self.stale))
            extra.append(stale[live[stale]])
        rows = np.unique(np.concatenate([graph_rows.astype(np.int64), *extra]))
        return rows, self.scores(matrix, rows, query)


def _rows_f32(vectors: np.ndarray, rows: np.ndarray, removed_rows: np.ndarray) -> np.ndarray:
    """``rows``' vectors as float32 (a copy), a removed row's as zeros: never index a
    removed row's vector, even for a moment."""
    block = np.ascontiguousarray(vectors[rows], dtype=np.float32)
    if len(removed_rows):
        block[np.isin(rows, removed_rows)] = 0.0
    return block


def episode_rows(
    rows: np.ndarray,
    live: np.ndarray,
    source_codes: np.ndarray,
    members: EpisodeRows,
) -> np.ndarray:
    """Every admitted row of the episodes ``rows`` belong to (the episode leg averages
    whole episodes; the graph only says which episodes to average)."""
    out: list[int] = []
    for code in np.unique(source_codes[rows]).tolist():
        out.extend(row for row in members.rows(code) if live[row])
    return np.asarray(sorted(out), dtype=np.int64)
