"""Episode-level BM25 postings: a term costs the episodes it is in, not their rows.

Why it is built this way: docs/decisions/internals.md#adaptersinprocessepisode_postingspy.
"""

import ctypes
import ctypes.util
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from time import process_time
from typing import Protocol

import numpy as np

from adapters.inprocess.analyzer import analyze
from adapters.inprocess.bm25 import Bm25Postings, cut_tail
from adapters.inprocess.bm25_topk import TermPostings, top_candidates

__all__ = [
    "BlockSink",
    "EpisodeLeg",
    "EpisodePlan",
    "EpisodePostings",
    "WideTfs",
    "build",
    "plan",
    "replan",
    "top_group_plan",
]

_log = logging.getLogger("tessera.index")

#: postings gathered into one vectorised pass of ``build`` (bounds its temporaries)
_BLOCK = 1 << 22
#: partly admitted rows past this share of the rows: the plan declines (each costs a
#: binary search per query term; the row-postings path costs the terms' rows instead)
_PARTIAL_SHARE = 0.05
#: rows written since the build past this share of them: rebuild (in the background).
#: They cost each query term its own new rows (the posting's tail), as the row postings
#: would, so this bounds that cost and how often a build runs (7.5 CPU-s at 1M rows)
_STALE_SHARE = 0.1
#: below this many rows the leg keeps the row postings: ``group_scores`` costs ~1 ms
#: there (benchmarks/RESULTS.md: 5.4 ms p50 at 300k), less than a build now and then
MIN_ROWS = 20_000

Parts = list[tuple[str, np.ndarray, np.ndarray, bytearray | bytes]]


class BlockSink(Protocol):
    """Where ``build`` puts the packed arrays block by block instead of holding them
    (files: ``episode_files.FileSink``): the build's peak is one block, not both
    arrays twice (at 1M rows, ~560 MB less)."""

    def add(self, groups: np.ndarray, tfs: np.ndarray) -> None:
        """The next block: int32 episode codes, uint16 summed tfs."""
        ...

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """After the last block: the whole arrays (mapped)."""
        ...


class WideTfs(ValueError):
    """A summed tf past uint16: a sink cannot take it (the build holds float32 instead)."""


@dataclass(frozen=True, slots=True)
class EpisodePostings:
    """Term n owns ``groups[offsets[n]:offsets[n+1]]`` (sorted) and ``tfs`` beside them."""

    rows: int
    #: which rows below ``rows`` the build counted, and how many of each episode
    counted: np.ndarray
    counts: np.ndarray
    terms: dict[str, int]
    offsets: np.ndarray
    groups: np.ndarray
    tfs: np.ndarray
    max_tfs: np.ndarray
    build_cpu_s: float

    def posting(self, term: str) -> tuple[np.ndarray, np.ndarray, float] | None:
        n = self.terms.get(term)
        if n is None:
            return None
        a, b = int(self.offsets[n]), int(self.offsets[n + 1])
        return self.groups[a:b], self.tfs[a:b], float(self.max_tfs[n])

    def nbytes(self) -> int:
        """Bytes held in memory (the packed arrays mapped from a snapshot are not)."""
        arrays = (self.counted, self.counts, self.offsets, self.groups, self.tfs, self.max_tfs)
        held = sum(int(a.nbytes) for a in arrays if not isinstance(a, np.memmap))
        return held + sum(len(t) + 100 for t in self.terms)

    def mapped_bytes(self) -> int:
        """The packed arrays mapped from a snapshot (resident only as far as read)."""
        return sum(int(a.nbytes) for a in (self.groups, self.tfs) if isinstance(a, np.memmap))


def release_free_heap() -> None:
    """Hand the allocator's free pages back to the system (glibc ``malloc_trim``).

    Why: the build's per-block temporaries (tens of MB each) come from the worker
    thread's malloc arena, which keeps them once freed; at 1M rows that left the
    process ~0.5 GB more resident after a build than its arrays need (measured). Elsewhere (no
    glibc) nothing happens."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim(0)
    except (OSError, AttributeError):
        return


def _cut(
    docs: np.ndarray, tfs: np.ndarray, tail: bytearray | bytes, rows: int
) -> tuple[np.ndarray, np.ndarray]:
    """A term's rows below ``rows`` (a reader's view of ``Bm25Postings.parts``)."""
    if tail:
        tail_docs, tail_tfs = cut_tail(tail, rows)
        docs = np.concatenate([docs, tail_docs])
        tfs = np.concatenate([tfs, tail_tfs])
    n = int(np.searchsorted(docs, rows))
    return docs[:n], tfs[:n]


def build(
    parts: Parts,
    groups: np.ndarray,
    n_groups: int,
    counted: np.ndarray | None = None,
    sink: BlockSink | None = None,
) -> EpisodePostings:
    """The episode postings of the ``counted`` rows (None: all) of ``0 .. len(groups)``,
    from the row postings' ``parts`` (read once, never changed: a worker thread may run
    this while writes go on). ``sink``: the packed arrays go there (raises ``WideTfs``
    where a summed tf does not fit uint16)."""
    began = process_time()
    rows = len(groups)
    if counted is None:
        counted = np.ones(rows, dtype=bool)
    terms: dict[str, int] = {}
    out_groups: list[np.ndarray] = []
    out_tfs: list[np.ndarray] = []
    out_lengths: list[np.ndarray] = []
    out_max: list[np.ndarray] = []
    block: list[tuple[np.ndarray, np.ndarray]] = []
    held = 0

    def flush() -> None:
        nonlocal held
        if not block:
            return
        lengths = np.asarray([len(d) for d, _ in block], dtype=np.int64)
        term_of = np.repeat(np.arange(len(block), dtype=np.int64), lengths)
        g = groups[np.concatenate([d for d, _ in block])].astype(np.int64)
        tf = np.concatenate([t for _, t in block])
        key = term_of * n_groups + g
        if len(key) > 1 and bool((key[1:] < key[:-1]).any()):
            # an episode's rows are not contiguous (appended by a later write): sort
            order = np.argsort(key, kind="stable")
            key, g, tf = key[order], g[order], tf[order]
        starts = np.flatnonzero(np.concatenate([[True], key[1:] != key[:-1]])) if len(key) else key
        out_groups.append(g[starts].astype(np.int32))
        summed = np.add.reduceat(tf, starts) if len(starts) else tf
        # summed tfs are whole numbers, nearly all small: 2 bytes each where a block's fit
        # (at 1M rows, 54.6M episode postings: 437 -> 328 MB), made per block so the
        # build never holds a second full-width copy of them
        small = len(summed) == 0 or float(summed.max()) < 1 << 16
        per_term = np.bincount(term_of[starts], minlength=len(block))
        out_lengths.append(per_term)
        # every term of a block is whole in it and holds a posting: its largest tf here
        firsts = np.zeros(len(per_term), dtype=np.int64)
        np.cumsum(per_term[:-1], out=firsts[1:])
        out_max.append(np.maximum.reduceat(summed, firsts).astype(np.float32))
        if sink is not None:
            if not small:
                raise WideTfs("a summed tf does not fit uint16")
            sink.add(out_groups.pop(), summed.astype(np.uint16))
        else:
            out_tfs.append(summed.astype(np.uint16 if small else np.float32))
        block.clear()
        held = 0

    for term, docs, tfs, tail in parts:
        d, t = _cut(docs, tfs, tail, rows)
        keep = counted[d]
        if not keep.all():
            d, t = d[keep], t[keep]
        if len(d) == 0:
            continue
        terms[term] = len(terms)
        block.append((d, t))
        held += len(d)
        if held >= _BLOCK:
            flush()
    flush()
    per_term = np.concatenate(out_lengths) if out_lengths else np.empty(0, dtype=np.int64)
    offsets = np.zeros(len(per_term) + 1, dtype=np.int64)
    np.cumsum(per_term, out=offsets[1:])
    if sink is not None:
        all_groups, all_tfs = sink.arrays()
    else:
        # one array at a time, each block list dropped once joined: the build's peak is one
        # joined array beside its blocks, not every one of them twice (benchmarks/RESULTS.md)
        all_groups = np.concatenate(out_groups) if out_groups else np.empty(0, dtype=np.int32)
        out_groups.clear()
        wide = any(t.dtype != np.uint16 for t in out_tfs)
        tf_type = np.float32 if wide or not out_tfs else np.uint16
        all_tfs = np.concatenate(out_tfs, dtype=tf_type) if out_tfs else np.empty(0, tf_type)
        out_tfs.clear()
    max_tfs = np.concatenate(out_max) if out_max else np.empty(0, np.float32)
    return EpisodePostings(
        rows=rows,
        counted=counted,
        counts=np.bincount(groups[counted], minlength=n_groups),
        terms=terms,
        offsets=offsets,
        groups=all_groups,
        tfs=all_tfs,
        max_tfs=max_tfs.astype(np.float32),
        build_cpu_s=process_time() - began,
    )


@dataclass(frozen=True, slots=True)
class EpisodePlan:
    """What one filter needs of the episode postings (kept per filter; writes move it)."""

    #: episodes scored from the episode postings
    full: np.ndarray
    #: every episode of the build is full: a term's df is its posting's length
    every: bool
    #: admitted rows below ``rows`` of the other episodes, sorted
    partial_rows: np.ndarray
    #: the smallest length norm of an episode holding an admitted row
    min_norm: float
    #: rows at the build; the filter's mask (rows past the build: each term's tail)
    rows: int
    live: np.ndarray


def plan(
    postings: EpisodePostings,
    live: np.ndarray,
    groups: np.ndarray,
    n_groups: int,
    norm: np.ndarray,
    partial_share: float = _PARTIAL_SHARE,
) -> EpisodePlan | None:
    """None when more than ``partial_share`` of the rows are admitted rows of the build
    outside full episodes (see the module). Rows written since the build need no
    such list: they are the tail of each row posting, read as such."""
    n = len(live)
    codes = groups[:n]
    admitted = np.bincount(codes[live], minlength=n_groups)
    counted = np.zeros(n, dtype=bool)
    counted[: postings.rows] = postings.counted[:n]
    both = np.bincount(codes[live & counted], minlength=n_groups)
    built = np.zeros(n_groups, dtype=np.int64)
    built[: len(postings.counts)] = postings.counts[:n_groups]
    # admitted rows == counted rows: as many of each, and as many in both
    full = (admitted == built) & (both == built) & (built > 0)
    old = min(postings.rows, n)
    partial_rows = np.flatnonzero(live[:old] & ~full[codes[:old]])
    if len(partial_rows) > partial_share * n:
        return None
    present = admitted > 0
    if not present.any():
        return None
    every = int(full.sum()) == int((built > 0).sum())
    min_norm = float(norm[present].min())
    return EpisodePlan(full, every, partial_rows, min_norm, postings.rows, live)


def replan(
    kept: EpisodePlan,
    postings: EpisodePostings,
    live: np.ndarray,
    groups: np.ndarray,
    n_groups: int,
    norm: np.ndarray,
    admitted: np.ndarray,
    moved: np.ndarray,
    rows_of: Callable[[int], list[int]],
    partial_share: float = _PARTIAL_SHARE,
) -> EpisodePlan | None:
    """``plan`` of the same postings for ``live``, from ``kept`` (the plan of a mask that
    differs from ``live`` at rows ``moved`` and in the rows appended since): only the
    episodes of those rows are looked at again (``rows_of``: an episode's rows), so a
    write costs its own rows, not a pass over every row. ``admitted``: each episode's
    admitted rows (``GroupTotals.counts`` of ``live``). The same plan as ``plan`` makes
    afresh (the property tests compare them), or None where ``plan`` declines."""
    n = len(live)
    codes = groups[:n]
    counts = postings.counts[:n_groups]  # episodes past the build: none counted
    full = kept.full[:n_groups]
    fresh = len(full) < n_groups
    if fresh:
        full = np.concatenate([full, np.zeros(n_groups - len(full), dtype=bool)])
    old = min(postings.rows, n)
    touched = np.unique(codes[moved]) if len(moved) else np.empty(0, dtype=np.int64)
    partial_rows = kept.partial_rows
    if len(touched):
        lists = [rows_of(int(code)) for code in touched]
        rows = np.sort(np.fromiter((r for rs in lists for r in rs), dtype=np.int64))
        slot = np.searchsorted(touched, codes[rows])
        counted = np.zeros(len(rows), dtype=bool)
        early = rows < postings.rows
        counted[early] = postings.counted[rows[early]]
        admitted_here = live[rows]
        both = np.bincount(slot[admitted_here & counted], minlength=len(touched))
        mine = np.zeros(len(touched), dtype=np.int64)
        inside = touched < len(counts)
        mine[inside] = counts[touched[inside]]
        full = full if fresh else full.copy()  # the kept plan's array stays as it was
        full[touched] = (admitted[touched] == mine) & (both == mine) & (mine > 0)
        # the touched episodes' rows leave the sorted list (they are among ``rows``) and
        # those of the build, admitted and outside a full episode, go back in: a cost of
        # the touched rows and one copy of the list, not a sort of it
        if len(partial_rows):
            at = np.minimum(np.searchsorted(partial_rows, rows), len(partial_rows) - 1)
            partial_rows = np.delete(partial_rows, at[partial_rows[at] == rows])
        again = rows[(rows < old) & admitted_here]
        again = again[~full[codes[again]]]
        where = np.searchsorted(partial_rows, again)
        partial_rows = np.insert(partial_rows, where, again).astype(np.int64)
    if len(partial_rows) > partial_share * n:
        return None
    present = admitted > 0
    if not present.any():
        return None
    every = int(np.count_nonzero(full)) == int(np.count_nonzero(counts))
    min_norm = float(norm[present].min())
    return EpisodePlan(full, every, partial_rows, min_norm, postings.rows, live)


def _partial(
    docs: np.ndarray, tfs: np.ndarray, episode_plan: EpisodePlan, groups: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(episodes, summed tf) of a term over the admitted rows outside full episodes:
    the row posting's intersection with the plan's rows of the build (binary search
    from the shorter side), and its admitted rows written since (its tail: an episode
    holding one is never full)."""
    rows = episode_plan.partial_rows
    start = int(np.searchsorted(docs, episode_plan.rows))
    later = docs[start:]
    keep = episode_plan.live[later]
    later, later_tf = later[keep].astype(np.int64), tfs[start:][keep]
    docs, tfs = docs[:start], tfs[:start]
    if len(docs) == 0 or len(rows) == 0:
        found, found_tf = later, later_tf
    elif len(rows) <= len(docs):
        pos = np.minimum(np.searchsorted(docs, rows.astype(docs.dtype)), len(docs) - 1)
        hit = docs[pos] == rows
        found, found_tf = rows[hit], tfs[pos[hit]]
    else:
        pos = np.minimum(np.searchsorted(rows, docs), len(rows) - 1)
        hit = rows[pos] == docs
        found, found_tf = docs[hit].astype(np.int64), tfs[hit]
    if len(later) and len(rows) and len(docs):
        found, found_tf = np.concatenate([found, later]), np.concatenate([found_tf, later_tf])
    if len(found) == 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.float32)
    episodes, inverse = np.unique(groups[found], return_inverse=True)
    summed = np.bincount(inverse, weights=found_tf, minlength=len(episodes))
    return episodes.astype(np.int64), summed.astype(np.float32)


def top_group_plan(
    lexical: Bm25Postings,
    postings: EpisodePostings,
    episode_plan: EpisodePlan,
    query: str,
    groups: np.ndarray,
    stats: tuple[int, np.ndarray],
    k: int,
) -> Callable[[], tuple[np.ndarray, np.ndarray]]:
    """A call giving (episodes, scores) holding the ``k`` best of ``lexical.group_scores``
    with the same scores (``stats``: ``group_stats`` of the same filter as
    ``episode_plan``). What it reads is gathered now; the call reads only arrays no write
    changes in place, so it may run on another thread (``bm25.Bm25Postings.top_plan``)."""
    n_docs, norm = stats
    full = episode_plan.full
    read = []  # each term's row posting and episode posting: gathered here (folds postings)
    for term in set(analyze(query)):
        rows = lexical.row_posting(term)
        if rows is not None:
            read.append((rows, postings.posting(term)))

    every = episode_plan.every
    usable = None if every else full

    def scored() -> tuple[np.ndarray, np.ndarray]:
        terms = []
        for (docs, tfs), found in read:
            if found is None:
                main, main_tfs, max_tf = np.empty(0, np.int32), np.empty(0, np.float32), 0.0
            else:
                main, main_tfs, max_tf = found
            extra, extra_tfs = _partial(docs, tfs, episode_plan, groups)
            df = len(extra) + (len(main) if every else int(np.count_nonzero(full[main])))
            if df == 0:
                continue
            idf = float(np.log(1 + (n_docs - df + 0.5) / (df + 0.5)))
            terms.append(TermPostings(main, main_tfs, idf, max_tf, extra, extra_tfs))
        return top_candidates(terms, norm, episode_plan.min_norm, k, usable=usable)

    return scored


class EpisodeLeg:
    """One organisation's episode postings: built when first wanted, rebuilt when stale.

    From ``min_rows`` rows; the build runs in a daemon thread (7.5 CPU-s at 1M rows) unless the
    rows are below ``sync_below`` (tests); until it
    lands, ``current`` answers None and the caller uses the row postings. The thread
    only reads what it was handed (``parts`` arrays are never changed in place; tails
    are cut at the build's row count)."""

    def __init__(self, min_rows: int = MIN_ROWS, sync_below: int = 0) -> None:
        self.min_rows = min_rows
        self.postings: EpisodePostings | None = None
        #: bumped when new postings land (per-filter plans are keyed by it)
        self.generation = 0
        self.sync_below = sync_below
        self._building: threading.Thread | None = None
        #: the index's write version the last build started at, and whether a plan
        #: declined the postings since (a rebuild is due if anything was written)
        self._built_version = -1
        self._declined = False
        #: rows at a failed build: no retry until the rows grew past it
        self._failed_at = -1
        #: called in the build's thread with what it built: the same postings mapped
        #: from files written for them (the heap copies go), or None (not written)
        self.persist: Callable[[EpisodePostings], EpisodePostings | None] | None = None
        #: the rows ``persist`` takes (a snapshot's): a build stops there when the rows
        #: past it are few (a restore's catch-up), so that it can be persisted
        self.persist_rows: int | None = None
        #: where a build of this many rows may put its arrays as it goes (None: held)
        self.sink: Callable[[int], BlockSink | None] | None = None

    def adopt(self, postings: EpisodePostings) -> None:
        """Postings read back from a snapshot, in place of a build."""
        self.postings = postings
        self.generation += 1

    def current(
        self,
        rows: int,
        version: int,
        parts: Callable[[], Parts],
        groups: Callable[[], tuple[np.ndarray, np.ndarray]],
        n_groups: int,
    ) -> EpisodePostings | None:
        """The postings (maybe stale: the plan handles that), starting a build if due.
        ``groups``: each row's episode and whether the build counts it."""
        if rows < self.min_rows:
            return None
        postings = self.postings
        due = postings is None or rows - postings.rows > _STALE_SHARE * max(postings.rows, 1)
        due = due or (self._declined and version != self._built_version)
        if due and rows > self._failed_at and self._building is None:
            self._declined = False
            self._built_version = version
            codes, counted = groups()
            cut = self.persist_rows if self.persist is not None else None
            # the rows past the cut are each term's tail to the plan, as after any build;
            # at most half the stale share, so that no rebuild follows at once
            if cut is not None and cut < rows and rows - cut <= _STALE_SHARE / 2 * cut:
                codes, counted = codes[:cut], counted[:cut]
            self.start(parts(), codes, n_groups, counted)
        return self.postings

    def wanted(self) -> None:
        """A plan declined the postings (too much changed for its filter)."""
        self._declined = True

    def start(self, parts: Parts, groups: np.ndarray, n_groups: int, counted: np.ndarray) -> None:
        rows = len(groups)

        def run() -> None:
            try:
                built = self._build(parts, groups, n_groups, counted)
            except Exception:  # never fatal: the leg keeps the row postings
                _log.exception("episode postings build failed at %d rows", rows)
                self._failed_at = rows
            else:
                self.postings = built
                self.generation += 1
                self._persist(built)
                del built  # once mapped, the heap copies are the allocator's again
            finally:
                self._building = None
                release_free_heap()

        if rows < self.sync_below:
            run()
            return
        thread = threading.Thread(target=run, name="episode-postings", daemon=True)
        self._building = thread
        thread.start()

    def _build(
        self, parts: Parts, groups: np.ndarray, n_groups: int, counted: np.ndarray
    ) -> EpisodePostings:
        """Into the sink where one is offered (its files), else held; a sink that fails
        (a save replaced the snapshot meanwhile, a wide tf) costs a held build."""
        offer = self.sink
        try:
            sink = None if offer is None else offer(len(groups))
            if sink is not None:
                return build(parts, groups, n_groups, counted, sink)
        except (OSError, ValueError) as exc:
            _log.info("episode postings built in memory instead of to the snapshot: %s", exc)
        return build(parts, groups, n_groups, counted)

    def _persist(self, built: EpisodePostings) -> None:
        persist = self.persist
        if persist is None:
            return
        try:
            on_disk = persist(built)
        except Exception:  # never fatal: the next open derives them again
            _log.exception("episode postings of %d rows could not be written", built.rows)
            return
        if on_disk is not None and self.postings is built:
            self.postings = on_disk  # the same content: plans of this generation hold

    def wait(self, timeout: float | None = None) -> None:
        """Until a running build lands (tests, benchmarks)."""
        thread = self._building
        if thread is not None:
            thread.join(timeout)
