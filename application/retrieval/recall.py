"""Retrieve, then re-check under the policy: the one seam search, packs and synthesis share.

The pipeline ranks candidates inside the caller's ``CandidateFilter``; this
class then loads each chunk from the store (the truth) and authorizes it
again, so a chunk hidden, redacted or moved since the index saw it is
withheld and counted. It is built once in the composition root and handed to
every use case that reads memory (docs/design.md#composition), so
they share one query-vector cache and one readiness state.
"""

import asyncio
import contextlib
from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

import msgspec

from application.enrichment.embedding import QueryVectorCache
from application.indexing.readiness import OrgReadiness
from application.ports import Embedder, MemoryStore, RetrievalIndex
from application.ports.derived import DerivedHit, DerivedLists, QueryMeaning
from application.ports.records import Vector
from application.ports.rerank import Reranker
from application.retrieval.found import Found
from application.retrieval.lifecycle import LifecycleNote, honour_corrections
from application.retrieval.options import ConversationRecall
from application.retrieval.pipeline import Ranked, RetrievalMode, RetrievalPipeline, Retrieved
from application.retrieval.rerank_step import DEFAULT_TOP_N
from application.trust.guard import candidate_filter, may_read
from domain.policy import MemoryPolicyContext
from domain.query_words import QueryWords, query_words
from domain.ranking.ranker import RankWeights
from domain.relevance_gate import Evidence
from domain.search_filters import SearchFilters

__all__ = ["Recall", "RecallQuery", "Recalled"]

#: the modes that fuse signals (the single-signal baselines stay raw-only)
_FUSED = frozenset({RetrievalMode.HYBRID, RetrievalMode.RANKED})


class RecallQuery(Protocol):
    """What a read request must say: which organisation, what to look for, as of when."""

    @property
    def org_id(self) -> str: ...

    @property
    def query(self) -> str: ...

    @property
    def as_of(self) -> datetime | None: ...


class Recalled(msgspec.Struct, frozen=True, kw_only=True):
    """What a read found: the chunks (re-checked), their lifecycle notes, how many were
    withheld, the promoted records that matched, and the gate's evidence (``Ranked``)."""

    found: list[Retrieved]
    notes: dict[str, LifecycleNote]
    withheld: int
    derived: list[DerivedHit] = msgspec.field(default_factory=list)
    evidence: list[Evidence] = msgspec.field(default_factory=list)
    #: ranked after ``found`` but not yet loaded nor authorized (``resolve`` them if needed)
    unresolved: list[Found] = msgspec.field(default_factory=list)


class Recall:
    def __init__(
        self,
        *,
        store: MemoryStore,
        index: RetrievalIndex,
        embedder: Embedder,
        readiness: OrgReadiness | None = None,
        retrieval_mode: RetrievalMode = RetrievalMode.RANKED,
        rank_weights: RankWeights | None = None,
        reranker: Reranker | None = None,
        rerank_top_n: int = DEFAULT_TOP_N,
        derived: DerivedLists | None = None,
        conversation: ConversationRecall | None = None,
    ) -> None:
        self._store = store
        #: promoted records as one more signal (``entity``); None: raw memory only
        self._derived = derived
        self._embedder = embedder
        #: shared with the write path: an organisation is prepared once per process
        self.readiness = readiness or OrgReadiness(store, index, embedder)
        self.query_vectors = QueryVectorCache(embedder)
        self._pipeline = RetrievalPipeline(
            index=index,
            query_vector=self.query_vectors.vector_for,
            mode=retrieval_mode,
            weights=rank_weights,
            reranker=reranker,
            rerank_top_n=rerank_top_n,
            conversation=conversation,
        )

    async def resolve(
        self,
        request: RecallQuery,
        policy: MemoryPolicyContext,
        found: Sequence[Found],
    ) -> tuple[list[Retrieved], dict[str, LifecycleNote], int]:
        """Load the chunks and authorize each again; their lifecycle notes; how many withheld."""
        chunks, sources = await self._store.chunks_with_sources(
            request.org_id, [f.chunk_id for f in found]
        )
        resolved = []
        for hit in found:
            chunk = chunks.get(hit.chunk_id)
            # the policy also refuses what the lifecycle withholds (domain.lifecycle)
            if chunk is not None and may_read(policy, chunk):
                resolved.append(
                    Retrieved(
                        chunk=chunk,
                        score=hit.score,
                        ranks=hit.ranks,
                        reasons=hit.reasons,
                        similarity=hit.similarity,
                        words=hit.words,
                    )
                )
        kept, notes, withheld = await honour_corrections(
            self._store, policy, request.org_id, resolved, sources
        )
        return kept, notes, len(found) - len(resolved) + withheld

    async def retrieve(
        self,
        request: RecallQuery,
        policy: MemoryPolicyContext,
        limit: int,
        filters: SearchFilters | None = None,
    ) -> tuple[list[Retrieved], dict[str, LifecycleNote], int]:
        """Candidates only from the spaces the caller may read (filtered inside the index),
        narrowed by the caller's ``filters`` inside the same queries."""
        recalled = await self.retrieve_with_derived(request, policy, limit, filters)
        return recalled.found, recalled.notes, recalled.withheld

    async def retrieve_with_derived(
        self,
        request: RecallQuery,
        policy: MemoryPolicyContext,
        limit: int,
        filters: SearchFilters | None = None,
        depth: int | None = None,
        resolve_first: int | None = None,
        question: QueryWords | None = None,
    ) -> Recalled:
        """``retrieve``, and the promoted records that matched (each gated on all its sources).

        A filtered query leaves the derived signal out: a promoted record spans sources
        the filter may not match, and a filter must only narrow. ``depth``: the pipeline's.
        ``resolve_first``: only the first so many are loaded and authorized; the rest come
        back ``unresolved``, for a caller that may not need them (a pack's full budget).
        ``question``: ``request.query`` already read, by a caller that reads it too."""
        question = query_words(request.query) if question is None else question
        await self.readiness.ensure(request.org_id)
        where = msgspec.structs.replace(candidate_filter(policy), narrow=filters)
        if self._derived is None or self._pipeline.mode not in _FUSED or filters is not None:
            ranked = await self._pipeline.ranked(
                request.org_id, question, limit, where, request.as_of, depth=depth
            )
            return await self._recalled(request, policy, ranked, resolve_first, [])
        # the records' queries run beside the index searches (the store's I/O overlaps
        # the in-process index's CPU work), not before them
        derived = self._derived
        # the records' vector legs wait for the query vector the pipeline makes anyway
        meaning: asyncio.Future[QueryMeaning | None] = asyncio.get_running_loop().create_future()

        def heard(vector: Vector) -> None:
            if not meaning.done():
                meaning.set_result(QueryMeaning(vector=vector, model=self._embedder.space.model))

        # every derived list (``entity``, ``entity_vector``, ``graph``, ``relation``) from one
        # graph read and one lifecycle read (``DerivedRecall.lists``)
        hits = asyncio.ensure_future(
            derived.lists(request.org_id, question, policy, meaning=meaning)
        )

        async def entity_signal() -> dict[str, list[str]]:
            return (await hits)[1]

        signal = entity_signal()
        try:
            ranked = await self._pipeline.ranked(
                request.org_id,
                question,
                limit,
                where,
                request.as_of,
                extra=signal,
                on_vector=heard,
                depth=depth,
            )
        finally:
            if not meaning.done():  # the pipeline failed before embedding: no vector legs
                meaning.set_result(None)
            signal.close()  # a no-op once awaited; if the pipeline failed first, never awaited
            if not hits.done():
                # let an embedded read finish rather than cancel it inside the engine
                with contextlib.suppress(Exception):
                    await hits
        return await self._recalled(request, policy, ranked, resolve_first, hits.result()[0])

    async def _recalled(
        self,
        request: RecallQuery,
        policy: MemoryPolicyContext,
        ranked: Ranked,
        first: int | None,
        derived: list[DerivedHit],
    ) -> Recalled:
        now, later = (
            (ranked.found, []) if first is None else (ranked.found[:first], ranked.found[first:])
        )
        found, notes, withheld = await self.resolve(request, policy, now)
        return Recalled(
            found=found,
            notes=notes,
            withheld=withheld,
            derived=derived,
            evidence=ranked.evidence,
            unresolved=later,
        )
