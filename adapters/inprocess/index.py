"""The in-process retrieval accelerator: exact vector scan + BM25 in numpy.

SurrealDB stays the truth. This index is derived from it: rebuilt from the
store's packed vectors when an organisation is first used, then kept
write-through by the use cases. Why it exists: the embedded engine never
builds its HNSW index (every KNN is an exact scan through the engine, and
grows with the data) and its BM25 is slow on common terms; a float32 matrix
product over 100k x 384 takes a few milliseconds and filters for free.
"""

import asyncio
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import numpy as np

from adapters.inprocess import ann, cache_follow
from adapters.inprocess import episode_postings as episodes
from adapters.inprocess.bm25 import Bm25Postings
from adapters.inprocess.episode_rows import EpisodeRows
from adapters.inprocess.facets import FacetColumns
from adapters.inprocess.footprint import footprint
from adapters.inprocess.graph_retrain import GraphRetrain
from adapters.inprocess.id_rows import IdRows
from adapters.inprocess.query_cache import QueryCache
from adapters.inprocess.row_texts import RowTexts
from application.indexing.residency import IndexResidency, VectorLeg
from application.ports.records import (
    CandidateFilter,
    IndexedText,
    IndexEntry,
    ScopeRef,
    ScoredId,
    Vector,
)
from domain.lifecycle import RECALL_CLOSED
from domain.ranking.marks import text_marks
from domain.scopes import LifecycleState

__all__ = ["DEFAULT_ANN", "LEGS_OFF_LOOP_FROM", "InProcessIndex"]

_log = logging.getLogger("tessera.index")

_INITIAL_ROWS = 1024
DEFAULT_ANN = ann.AnnPolicy()
#: a filter keeping fewer than 1/_GATHER_BELOW of the rows gathers them before the product
_GATHER_BELOW = 4
#: threads scoring lexical legs: the two legs of a search side by side
_LEG_THREADS = 2
#: rows from which an organisation's lexical legs are scored on those threads. Measured
#: both ways in one process, searches alternating (benchmarks/RESULTS.md): at 1M rows
#: p50 / p95 54.6 / 73.0 ms on the loop against 50.6 / 67.5 on the
#: threads; at 300k and 100k no difference. Below, a leg costs about a millisecond and
#: the hand-offs to a thread and back can only add to it.
LEGS_OFF_LOOP_FROM = 100_000
#: rows appended to a vector graph between two trims of the heap (``extend_graph``): a
#: trim costs ~15-35 ms of a background thread at 1M rows, and a write adds a few rows
_TRIM_AFTER_ROWS = 2048
T = TypeVar("T")


def _release_heap_soon() -> None:
    """The allocator's free pages back to the system, off the event loop (malloc_trim
    walks the heap: ~15-60 ms at 1M rows)."""
    threading.Thread(target=episodes.release_free_heap, daemon=True).start()


class _OrgIndex:
    def __init__(self, ann_policy: ann.AnnPolicy | None = None) -> None:
        self.ids: list[str] = []
        self.row_of = IdRows(self.ids)
        self.vectors: np.ndarray | None = None
        #: each row's recall key (domain.lifecycle) as a dense code; closed is code 0
        self.recall_codes = np.zeros(_INITIAL_ROWS, dtype=np.int32)
        self.recall_table: dict[str, int] = {RECALL_CLOSED: 0}
        self.scope_codes = np.zeros(_INITIAL_ROWS, dtype=np.int32)
        self.scope_table: dict[ScopeRef, int] = {}
        #: episode (source) of each row, as a dense code, and each episode's rows
        self.source_codes = np.zeros(_INITIAL_ROWS, dtype=np.int64)
        self.source_ids: list[str] = []
        self.source_code_of = IdRows(self.source_ids)
        self.members = EpisodeRows()
        #: what the ranker reads of each row (the accelerator holds it so ranking
        #: candidates needs no store round trip); a restored index decodes them on demand
        self.texts = RowTexts()
        self.lexical = Bm25Postings()
        #: the episode leg's postings, derived from ``lexical`` when first wanted
        self.episodes = episodes.EpisodeLeg()
        #: what search ``filters`` narrow by (the caller's, beside the policy's)
        self.facets = FacetColumns()
        #: rows with a vector; a pending row answers lexical queries only
        self.has_vector = np.zeros(_INITIAL_ROWS, dtype=bool)
        #: rows whose source was removed (redact, delete): a late vector never lands there
        self.removed: set[int] = set()
        self.ready = False
        #: filter masks (moved by writes) and query products (until a write) a search shares
        self.cache = QueryCache(lambda changed: cache_follow.follow(self, changed))
        #: the vector leg's inverted file (ann.VectorGraph), made past
        #: ``ann_policy.min_rows`` (None: never)
        self.ann_policy = ann_policy
        self.graph: ann.VectorGraph | None = None
        #: the graph was read from a snapshot rather than built here (status, benchmarks)
        self.graph_restored = False
        #: a finer graph being trained while this one serves (``graph_retrain``)
        self.retrain: GraphRetrain | None = None
        #: told when a retrained graph replaces the restored one (a snapshot should keep it)
        self.on_retrained: Callable[[], None] | None = None
        #: rows appended to the graph since the heap was last trimmed (``extend_graph``)
        self.appended_untrimmed = 0

    @property
    def size(self) -> int:
        return len(self.ids)

    def _grow(self, needed: int) -> None:
        capacity = len(self.recall_codes)
        if needed <= capacity:
            return
        new_capacity = max(needed, capacity * 2)
        if self.vectors is not None:
            self.vectors = np.resize(self.vectors, (new_capacity, self.vectors.shape[1]))
            self.vectors[capacity:] = 0.0
        self.recall_codes = np.resize(self.recall_codes, new_capacity)
        self.recall_codes[capacity:] = 0
        self.scope_codes = np.resize(self.scope_codes, new_capacity)
        self.source_codes = np.resize(self.source_codes, new_capacity)
        self.has_vector = np.resize(self.has_vector, new_capacity)
        self.has_vector[capacity:] = False

    def matrix(self, dimension: int) -> np.ndarray:
        """The vector matrix, made at the first vector (rows before it were all pending)."""
        if self.vectors is None:
            self.vectors = np.zeros((len(self.recall_codes), dimension), dtype=np.float32)
        if self.vectors.shape[1] != dimension:
            raise ValueError(
                f"vector dimension {dimension} does not match the index ({self.vectors.shape[1]})"
            )
        return self.vectors

    def add(self, entries: Sequence[IndexEntry]) -> None:
        if not entries:
            return
        start = self.size
        sources_before = len(self.source_ids)
        replaced: list[int] = []
        self._grow(start + len(entries))
        with_vectors = [(n, e.vector) for n, e in enumerate(entries) if e.vector is not None]
        if with_vectors:
            matrix = self.matrix(len(with_vectors[0][1]))
            block = np.asarray([v for _, v in with_vectors], dtype=np.float32)
            if block.ndim != 2 or block.shape[1] != matrix.shape[1]:
                raise ValueError("vector dimensions differ within one write")
            norms = np.linalg.norm(block, axis=1, keepdims=True)
            rows = np.asarray([start + n for n, _ in with_vectors])
            matrix[rows] = block / np.clip(norms, 1e-12, None)
            self.has_vector[rows] = True
        for offset, entry in enumerate(entries):
            row = start + offset
            previous = self.row_of.get(entry.chunk_id)
            if previous is not None:  # a re-indexed chunk: the old row stops answering
                self.recall_codes[previous] = 0
                replaced.append(previous)
            self.ids.append(entry.chunk_id)
            self.row_of[entry.chunk_id] = row
            self.recall_codes[row] = self.recall_code(entry.recall_key)
            ref = ScopeRef(entry.scope, entry.scope_key)
            self.scope_codes[row] = self.scope_table.setdefault(ref, len(self.scope_table))
            code = self.source_code_of.get(entry.source_id)
            if code is None:
                code = self.source_code_of[entry.source_id] = len(self.source_ids)
                self.source_ids.append(entry.source_id)
            self.source_codes[row] = code
            order = entry.turn_index if entry.turn_index is not None else -1
            self.members.add(code, order, row)
            self.texts.append(
                IndexedText(
                    chunk_id=entry.chunk_id,
                    source_id=entry.source_id,
                    text=entry.ranker_text,
                    role=entry.role,
                    turn_index=entry.turn_index,
                    occurred_at=entry.occurred_at,
                    speaker=entry.speaker,
                    marks=text_marks(entry.ranker_text),
                )
            )
        self.lexical.extend(start, [e.text for e in entries])
        widened = self.facets.add(start, entries, self.source_codes)
        # an older source that gained a facet: a filter narrowing by it may now admit its
        # older rows too (rows of sources new with this write are all appended)
        for code in sorted(c for c in widened if c < sources_before):
            replaced.extend(row for row in self.members.rows(code) if row < start)
        self._follow(np.asarray(replaced, dtype=np.int64))
        self.extend_graph()

    def extend_graph(self) -> None:
        policy = self.ann_policy
        if self.vectors is None or policy is None or self.size < policy.min_rows:
            return
        self.adopt_retrained()
        if self.graph is None or not self.graph.usable:
            self.graph = ann.VectorGraph(self.vectors.shape[1], policy)
        before = self.graph.labelled
        self.graph.extend(self.vectors, self.has_vector, self.size, self.removed)
        if before > 0:
            # faiss appends to a full list by moving it to a buffer twice its size and
            # freeing the old one, which the allocator keeps: at 1M rows the first 4,097
            # rows appended to a restored index (every list at its size) left ~220 MB more
            # anonymous memory, ~35 MB once trimmed (benchmarks/RESULTS.md)
            self.appended_untrimmed += self.graph.labelled - before
            if self.appended_untrimmed >= _TRIM_AFTER_ROWS:
                self.appended_untrimmed = 0
                _release_heap_soon()

    def start_retrain(self, *, threaded: bool = True) -> None:
        """Train a graph for the rows now beside the one serving (``graph_retrain``)."""
        if self.retrain is not None or self.vectors is None or self.ann_policy is None:
            return
        self.retrain = GraphRetrain(
            self.vectors, self.has_vector, self.size, self.removed, self.ann_policy
        )
        self.retrain.start(threaded=threaded)

    def adopt_retrained(self) -> None:
        """A finished retrain's graph in place of the serving one, told what changed since
        it started (on the event loop, between two operations: nothing reads the graph
        meanwhile; a snapshot write holding the old one goes on writing it)."""
        retrain = self.retrain
        if retrain is None or not retrain.finished:
            return
        self.retrain = None
        graph = retrain.result
        if graph is None or self.vectors is None:
            return  # failed (logged): the restored graph keeps serving
        graph.forget(sorted(retrain.forgotten))
        graph.changed(sorted(retrain.changed))
        if not graph.usable:
            return  # too much changed meanwhile: the serving graph stays
        self.graph = graph
        self.graph_restored = False
        self.cache.invalidate()  # the graph's per-filter masks and walks were the old one's
        graph.extend(self.vectors, self.has_vector, self.size, self.removed)
        if self.on_retrained is not None:
            self.on_retrained()
        _log.info("the retrained vector index serves now: %d lists", graph.lists)
        # the old lists (~770 MB at 1M rows) go back to the system
        _release_heap_soon()

    def attach(self, vectors: Mapping[str, Vector]) -> None:
        rows: list[int] = []
        kept: list[Vector] = []
        for chunk_id, vector in vectors.items():
            row = self.row_of.get(chunk_id)
            if row is not None and row not in self.removed:
                rows.append(row)
                kept.append(vector)
        if rows:
            # one block, normalised as ``add`` normalises its vectors
            matrix = self.matrix(len(kept[0]))
            block = np.asarray(kept, dtype=np.float32)
            if block.ndim != 2 or block.shape[1] != matrix.shape[1]:
                raise ValueError("vector dimensions differ within one write")
            norms = np.linalg.norm(block, axis=1, keepdims=True)
            matrix[rows] = block / np.clip(norms, 1e-12, None)
            self.has_vector[rows] = True
            if self.graph is not None:
                self.graph.changed(rows)
            if self.retrain is not None:
                self.retrain.changed.update(rows)
        # no filter's mask reads vectors: the masks and the values made of them alone stay
        self._follow(np.empty(0, dtype=np.int64))
        self.extend_graph()

    def recall_code(self, key: str) -> int:
        return self.recall_table.setdefault(key, len(self.recall_table))

    def rows_of(self, source_id: str) -> list[int]:
        code = self.source_code_of.get(source_id)
        return [] if code is None else self.members.rows(code)

    def update(self, source_id: str, lifecycle: LifecycleState, recall: str) -> None:
        code = self.recall_code(recall)
        rows = self.rows_of(source_id)
        for row in rows:
            if self.row_of.get(self.ids[row]) == row:  # not a row a re-index replaced
                self.recall_codes[row] = code
        self._follow(np.asarray(rows, dtype=np.int64))

    def remove(self, source_id: str) -> None:
        """The rows stop answering and lose their text and vector; the BM25 postings
        keep only term counts of the removed rows, which no query can reach again."""
        for row in self.rows_of(source_id):
            self.recall_codes[row] = 0
            self.removed.add(row)
            self.has_vector[row] = False
            if self.vectors is not None:
                self.vectors[row] = 0.0
            self.texts.clear(row)
        if self.graph is not None:
            self.graph.forget(self.rows_of(source_id))
        if self.retrain is not None:
            self.retrain.forgotten.update(self.rows_of(source_id))
        self._follow(np.asarray(self.rows_of(source_id), dtype=np.int64))

    def live(self, where: CandidateFilter) -> np.ndarray:
        """Rows ``where`` admits (read-only; kept across writes, ``_follow``)."""
        return self.cache.mask(where, lambda: self._admits(where, slice(0, self.size)))

    def _admits(self, where: CandidateFilter, rows: slice | np.ndarray) -> np.ndarray:
        """Whether ``where`` admits each of ``rows`` (a slice or row numbers below the
        size): the one predicate of a whole mask and of the rows a write changed."""
        admitted = [code for key, code in self.recall_table.items() if key in where.recall]
        recall = self.recall_codes[: self.size][rows]
        live = np.isin(recall, np.asarray(admitted, dtype=np.int32))
        scopes = self.scope_codes[: self.size][rows]
        if where.visible is not None:
            allowed = [code for ref, code in self.scope_table.items() if ref in where.visible]
            live &= np.isin(scopes, np.asarray(allowed, dtype=np.int32))
        narrow = where.narrow
        if narrow is not None and not narrow.is_empty:
            table = self.scope_table.items()
            spaces = [c for ref, c in table if narrow.admits_space(ref.scope, ref.scope_key)]
            space_ok = np.isin(scopes, np.asarray(spaces, dtype=np.int32))
            live &= self.facets.mask(
                narrow, self.size, self.source_codes, len(self.source_ids), space_ok, rows
            )
        return live

    def _follow(self, changed: np.ndarray) -> None:
        """After a write: rows ``changed`` (older rows) and the rows it appended may be
        admitted otherwise; every kept mask and per-filter value moves by them at the
        next lookup (``cache_follow``) instead of being rebuilt over every row."""
        self.cache.written(changed)

    def top(
        self, rows: np.ndarray, scores: np.ndarray, limit: int, names: list[str] | None = None
    ) -> list[ScoredId]:
        if len(rows) == 0 or limit < 1:
            return []
        if len(rows) > limit:
            # every row scoring at least the k-th best: a tie across the cut is then
            # settled by row order below, as in a deeper list, not by the partition
            kth = np.partition(scores, len(scores) - limit)[len(scores) - limit]
            keep = np.flatnonzero(scores >= kth)
            rows, scores = rows[keep], scores[keep]
        order = np.lexsort((rows, -scores))[:limit]  # best score first, older row on ties
        labels = self.ids if names is None else names
        return [ScoredId(labels[int(rows[i])], float(scores[i])) for i in order]

    def similarities(
        self,
        vector: Vector,
        live: np.ndarray,
        where: CandidateFilter | None = None,
        nearest: int | None = None,
        whole_episodes: bool = False,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(rows, cosine) of every live row with a vector; with ``where`` (what ``live``
        was made from), shared by the legs of one query until the next write. With
        ``nearest``, past the ANN threshold: at least the ``nearest`` best such rows (with
        ``whole_episodes``, every such row of their episodes, for the episode means)."""
        assert self.vectors is not None
        query = np.asarray(vector, dtype=np.float32)
        if query.shape != (self.vectors.shape[1],):
            raise ValueError("query vector dimension does not match the index")
        query = query / max(float(np.linalg.norm(query)), 1e-12)
        if where is None:
            return self._scan(query, live)
        if nearest is not None:
            self.adopt_retrained()
        if nearest is not None and self.graph is not None and self.graph.usable:
            with_vector = self.cache.derived(
                ("with_vector", where), lambda: live & self.has_vector[: self.size]
            )
            graph, vectors = self.graph, self.vectors
            # one search deep enough for both vector legs of a query (turn: ``nearest``,
            # the episode leg: EPISODE_ROWS), shared: the turn leg's best ``nearest`` of
            # the deeper search are the shallower one's (the same lists read; up to
            # near-ties at the cut), and a search cost ~2 ms at 1M rows (measured on the
            # HNSW graph the inverted file replaced: docs/decisions/ivf-over-hnsw.md)
            depth = max(nearest, ann.EPISODE_ROWS)
            found = self.cache.walk(
                where,
                query,
                lambda: graph.nearest(
                    vectors,
                    query,
                    with_vector,
                    depth,
                    lambda name, compute: self.cache.derived((name, where), compute),
                ),
            )
            if found is not None and whole_episodes:
                rows = ann.episode_rows(found[0], with_vector, self.source_codes, self.members)
                return rows, self.graph.scores(self.vectors, rows, query)
            if found is not None:
                return found
        return self.cache.product(where, query, lambda: self._scan(query, live))

    def _scan(self, query: np.ndarray, live: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        assert self.vectors is not None
        live = live & self.has_vector[: self.size]  # a pending row is no vector candidate
        rows = np.flatnonzero(live)
        if len(rows) == self.size:  # no filter: a contiguous slice avoids a gather copy
            return rows, self.vectors[: self.size] @ query
        if len(rows) * _GATHER_BELOW > self.size:
            # most rows live (a few corrected or in other spaces): one product over the
            # contiguous matrix, then pick, costs less than copying the live rows out first
            return rows, (self.vectors[: self.size] @ query)[rows]
        return rows, self.vectors[rows] @ query


class InProcessIndex:
    """One `_OrgIndex` per organisation; the organisation never crosses into another's arrays."""

    def __init__(
        self,
        ann_policy: ann.AnnPolicy | None = DEFAULT_ANN,
        legs_off_loop_from: int = LEGS_OFF_LOOP_FROM,
    ) -> None:
        """``ann_policy``: when an organisation's vector leg reads an inverted file
        (adapters.inprocess.ann); None keeps the exact scan at any size.
        ``legs_off_loop_from``: organisations of at least this many rows score their
        lexical legs on worker threads (``_scored``); smaller ones on the loop."""
        self._orgs: dict[str, _OrgIndex] = {}
        self._ann_policy = ann_policy
        self._off_loop_from = legs_off_loop_from
        #: the lexical legs' scoring threads, started at the first search
        self._legs: ThreadPoolExecutor | None = None

    async def _scored(self, org: _OrgIndex, kernel: Callable[[], T]) -> T:
        """A lexical leg's scoring: on a worker thread for a large organisation, where its
        numpy work (which releases the GIL) is most of the leg, so the legs of one search
        (``RetrievalPipeline._legs``) share the cores instead of queueing on the loop. The
        kernel reads only arrays no write changes in place (``top_plan``), so writes may
        land meanwhile; its own pool, so a leg never waits behind the default executor's
        work (the model's). A small organisation's legs stay on the loop
        (``LEGS_OFF_LOOP_FROM``)."""
        if org.size < self._off_loop_from:
            return kernel()
        if self._legs is None:
            self._legs = ThreadPoolExecutor(
                max_workers=_LEG_THREADS, thread_name_prefix="index-leg"
            )
        return await asyncio.get_running_loop().run_in_executor(self._legs, kernel)

    @property
    def name(self) -> str:
        return "inprocess"

    def _org(self, org_id: str) -> _OrgIndex:
        org = self._orgs.get(org_id)
        if org is None:
            org = self._orgs[org_id] = _OrgIndex(self._ann_policy)
        return org

    def is_ready(self, org_id: str) -> bool:
        org = self._orgs.get(org_id)
        return org is not None and org.ready

    def residency(self, org_id: str) -> IndexResidency | None:
        org = self._orgs.get(org_id)
        if org is None:
            return None
        graph = org.graph is not None and org.graph.usable
        return IndexResidency(
            rows=org.size,
            vector_leg=VectorLeg.IVF if graph else VectorLeg.EXACT,
            resident_bytes=footprint(org)["total"],
            retraining=org.retrain is not None,
        )

    async def add(self, org_id: str, entries: Sequence[IndexEntry]) -> None:
        self._org(org_id).add(entries)

    async def attach_vectors(self, org_id: str, vectors: Mapping[str, Vector]) -> None:
        org = self._orgs.get(org_id)
        if org is not None:
            org.attach(vectors)

    async def mark_ready(self, org_id: str) -> None:
        self._org(org_id).ready = True

    async def update(
        self, org_id: str, source_id: str, lifecycle: LifecycleState, recall: str
    ) -> None:
        org = self._orgs.get(org_id)
        if org is not None:
            org.update(source_id, lifecycle, recall)

    async def remove(self, org_id: str, source_id: str) -> None:
        org = self._orgs.get(org_id)
        if org is not None:
            org.remove(source_id)

    async def lexical(
        self, org_id: str, query: str, limit: int, where: CandidateFilter
    ) -> list[ScoredId]:
        org = self._orgs.get(org_id)
        if org is None or org.size == 0:
            return []
        kernel = org.lexical.top_plan(query, org.live(where), limit)
        rows, scores = await self._scored(org, kernel)
        return org.top(rows, scores, limit)

    async def vector(
        self, org_id: str, vector: Vector, limit: int, where: CandidateFilter
    ) -> list[ScoredId]:
        org = self._orgs.get(org_id)
        if org is None or org.size == 0 or org.vectors is None:
            return []
        rows, sims = org.similarities(vector, org.live(where), where, nearest=limit)
        return org.top(rows, sims, limit)

    async def episode_lexical(
        self, org_id: str, query: str, limit: int, where: CandidateFilter
    ) -> list[ScoredId]:
        org = self._orgs.get(org_id)
        if org is None or org.size == 0:
            return []
        live, codes, n = org.live(where), org.source_codes[: org.size], len(org.source_ids)
        totals = org.cache.derived(
            ("episode_bm25", where), lambda: org.lexical.group_totals(live, codes, n)
        )
        stats = totals.stats()
        if stats is None:
            return []
        size = org.size
        postings = org.episodes.current(
            size,
            org.cache.version,
            org.lexical.parts,
            # rows closed now (removed, replaced, withheld) are left out of the build
            lambda: (org.source_codes[:size].copy(), org.recall_codes[:size] != 0),
            n,
        )
        if postings is not None:
            key = ("episode_plan", where, org.episodes.generation)
            plan = org.cache.derived(
                key, lambda: episodes.plan(postings, live, codes, n, stats[1]) or False
            )
            if isinstance(plan, episodes.EpisodePlan):
                kernel = episodes.top_group_plan(
                    org.lexical, postings, plan, query, codes, stats, limit
                )
                groups, scores = await self._scored(org, kernel)
                return org.top(groups, scores, limit, org.source_ids)
            org.episodes.wanted()  # too much changed since the build for this filter
        groups, scores = org.lexical.group_scores(query, live, codes, n, stats)
        return org.top(groups, scores, limit, org.source_ids)

    async def episode_vector(
        self, org_id: str, vector: Vector, limit: int, where: CandidateFilter
    ) -> list[ScoredId]:
        org = self._orgs.get(org_id)
        if org is None or org.size == 0 or org.vectors is None:
            return []
        rows, sims = org.similarities(
            vector, org.live(where), where, nearest=ann.EPISODE_ROWS, whole_episodes=True
        )
        if len(rows) == 0:
            return []
        # summed over the episodes present only: counts over every episode (~330k at 1M
        # rows) and a scan of them for the present ones cost ~1.5 ms a search. The sums
        # add each episode's rows in the same order as a bincount over every episode.
        groups, at = np.unique(org.source_codes[rows], return_inverse=True)
        means = (np.bincount(at, weights=sims) / np.bincount(at)).astype(np.float32)
        return org.top(groups, means, limit, org.source_ids)

    async def episode_members(
        self, org_id: str, source_ids: Sequence[str], where: CandidateFilter
    ) -> dict[str, list[str]]:
        org = self._orgs.get(org_id)
        if org is None or org.size == 0:
            return {}
        live = org.live(where)
        out: dict[str, list[str]] = {}
        for source_id in dict.fromkeys(source_ids):
            code = org.source_code_of.get(source_id)
            if code is None:
                continue
            rows = [row for row in org.members.in_turn_order(code) if live[row]]
            if rows:
                out[source_id] = [org.ids[row] for row in rows]
        return out

    async def candidate_texts(
        self, org_id: str, chunk_ids: Sequence[str], where: CandidateFilter
    ) -> dict[str, IndexedText]:
        org = self._orgs.get(org_id)
        if org is None or org.size == 0 or not chunk_ids:
            return {}
        # one lookup an id: a restored id's is a binary search (``IdRows``)
        found = (org.row_of.get(c) for c in dict.fromkeys(chunk_ids))
        rows = [r for r in found if r is not None]
        live = org.live(where)
        return {org.ids[r]: org.texts[r] for r in rows if live[r]}

    async def drop(self, org_id: str) -> None:
        self._orgs.pop(org_id, None)
