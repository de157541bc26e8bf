"""The use cases: remember, search and context pack.

Every surface (HTTP, CLI, MCP, jobs) calls these; none of them talks to a
store or a model directly.
"""

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, TypeVar

from application.enrichment.embedding import preload
from application.enrichment.lane import EmbeddingLane
from application.memory.commands import ContextRequest, RememberRequest, SearchRequest
from application.memory.remembering import Remembering
from application.memory.results import (
    ContextItem,
    ContextPack,
    EpisodeGroup,
    ExplainedPack,
    ExplainedSearch,
    Hit,
    RememberResult,
    SearchHit,
    SearchResults,
    Signals,
)
from application.memory.writer import MemoryWriter
from application.ports import (
    Clock,
    Embedder,
    IdGenerator,
    MemoryStore,
    RetrievalIndex,
    TokenCounter,
)
from application.ports.records import EmbeddingSpace, StoreInfo
from application.retrieval.grouping import group_by_episode
from application.retrieval.lifecycle import LifecycleNote
from application.retrieval.pack_fit import fit_rendered
from application.retrieval.pipeline import LEG_DEPTH, Retrieved
from application.retrieval.recall import Recall, Recalled
from application.retrieval.relevance import about, gate_pack, relatedness_floors
from application.retrieval.withheld import withheld_redacted
from application.trust.audit import AuditTrail
from application.trust.guard import require_org
from domain.chunking import ChunkingRules
from domain.errors import InvalidInputError, PolicyDeniedError
from domain.hashing import content_hash
from domain.models import Chunk
from domain.policy import MemoryPolicyContext
from domain.query_words import QueryWords, query_words
from domain.ranking.reasons import RankReason, found_by
from domain.ranking.sentences import reason_text
from domain.relevance_gate import NOTHING_RELEVANT
from domain.search_filters import SearchFilters
from domain.signals import Signal

__all__ = ["MemoryService"]

_T = TypeVar("_T")
_H = TypeVar("_H", bound=Hit)

#: a context pack considers this many ranked candidates before filling its budget, from
#: legs as deep as a search's: forty short chat turns filled ~85% of the default budget
_PACK_CANDIDATES = 80
#: of which it reads and authorizes this many first, and the rest only if all of them fit
_PACK_FIRST = 40


class MemoryService:
    def __init__(
        self,
        *,
        store: MemoryStore,
        index: RetrievalIndex,
        embedder: Embedder,
        tokens: TokenCounter,
        clock: Clock,
        ids: IdGenerator,
        audit: AuditTrail,
        recall: Recall,
        lane: EmbeddingLane,
        chunking: ChunkingRules | None = None,
    ) -> None:
        self._store = store
        self._index = index
        self._embedder = embedder
        self._tokens = tokens
        self._clock = clock
        self._ids = ids
        self._audit = audit
        self._chunking = chunking or ChunkingRules()
        #: retrieve-then-recheck, shared with the other reading use cases
        self._recall = recall
        self._readiness = self._recall.readiness
        #: the embedding lane the root built over the same store, index and embedder
        self.lane = lane
        #: the one write path (remember, imports, benchmarks)
        self.writer = MemoryWriter(store=store, index=index, embedder=embedder, lane=self.lane)
        self._resumed: set[str] = set()
        self._remembering = Remembering(
            writer=self.writer,
            audit=audit,
            clock=clock,
            ids=ids,
            chunking=self._chunking,
            ready=self._ready,
        )

    # -- facts for health checks ------------------------------------------

    @property
    def embedding_space(self) -> EmbeddingSpace:
        return self._embedder.space

    @property
    def index_name(self) -> str:
        return self._index.name

    def store_info(self) -> StoreInfo:
        return self._store.info()

    async def open(self, org_id: str) -> None:
        """Prepare an organisation ahead of traffic (migrations, index warm-up), and let the
        embedding lane pick up the chunks a previous process left pending."""
        await self._ready(org_id)

    async def preload(self) -> None:
        """Load the embedder's model now where it runs here (see ``PreloadingEmbedder``)."""
        await preload(self._embedder)

    async def _ready(self, org_id: str) -> None:
        await self._readiness.ensure(org_id)
        if org_id not in self._resumed:
            self._resumed.add(org_id)
            self.lane.resume(org_id)

    # -- remember ----------------------------------------------------------

    async def remember(
        self, request: RememberRequest, policy: MemoryPolicyContext
    ) -> RememberResult:
        """Stored and searchable by its words when this returns; the vectors follow
        (``request.wait``: indexed waits for them)."""
        return await self._remembering.one(request, policy)

    def on_write(self, listener: Callable[[MemoryPolicyContext, list[str]], None]) -> None:
        """Tell ``listener`` each committed write's source ids (it must not wait)."""
        self._remembering.listeners.append(listener)

    async def remember_many(
        self,
        org_id: str,
        requests: Sequence[RememberRequest],
        policy: MemoryPolicyContext,
        *,
        tag: str | None = None,
    ) -> list[RememberResult | InvalidInputError | PolicyDeniedError]:
        """An import's batch in one store transaction (see ``Remembering.many``)."""
        return await self._remembering.many(org_id, requests, policy, tag=tag)

    # -- search ------------------------------------------------------------

    def _note_read(
        self,
        policy: MemoryPolicyContext,
        action: str,
        query: str,
        returned: Sequence[Chunk],
        withheld: int,
    ) -> None:
        self._audit.note(
            policy,
            action,
            ids=[c.chunk_id for c in returned],
            counts={"returned": len(returned), "withheld": withheld},
            hashes={"query": content_hash(query)},
        )

    async def search(self, request: SearchRequest, policy: MemoryPolicyContext) -> SearchResults:
        return (await self._search(request, policy))[0]

    async def search_explained(
        self, request: SearchRequest, policy: MemoryPolicyContext
    ) -> ExplainedSearch:
        """``search``, with each hit's reasons as values besides its ``reason`` sentence."""
        results, found = await self._search(request, policy)
        return ExplainedSearch(results=results, reasons=_reasons_by_chunk(found))

    async def _search(
        self, request: SearchRequest, policy: MemoryPolicyContext
    ) -> tuple[SearchResults, list[Retrieved]]:
        question, recalled, redacted = await self._recall_for(request, policy, request.limit)
        found, notes, withheld, derived = (
            recalled.found,
            recalled.notes,
            recalled.withheld,
            recalled.derived,
        )
        # a question nothing in memory is about gets no results, and is told so
        gated = bool(found) and not self._about(request.org_id, question, recalled)
        below_floor = len(found) if gated else 0
        if gated:
            found, derived = [], []
        self._note_read(policy, "search", request.query, [r.chunk for r in found], withheld)
        results = SearchResults(
            results=[_said(SearchHit, r, notes[r.chunk.chunk_id]) for r in found],
            withheld=withheld,
            withheld_redacted=await redacted,
            derived=derived,
            below_floor=below_floor,
            reason=NOTHING_RELEVANT if gated else None,
        )
        return results, found

    async def _recall_for(
        self,
        request: SearchRequest | ContextRequest,
        policy: MemoryPolicyContext,
        limit: int,
        depth: int | None = None,
        resolve_first: int | None = None,
    ) -> tuple[QueryWords, Recalled, asyncio.Future[int]]:
        """What search and packs start with: the request checked, its question read once,
        the candidates recalled, and the redacted count started beside them."""
        request.validate()
        require_org(policy, request.org_id)
        question = query_words(request.query)
        redacted = self._count_redacted(policy, request.org_id, question, request.filters)
        recalled = await _beside(
            redacted,
            self._recall.retrieve_with_derived(
                request,
                policy,
                limit,
                request.filters,
                depth=depth,
                resolve_first=resolve_first,
                question=question,
            ),
        )
        return question, recalled, redacted

    def _about(self, org_id: str, question: QueryWords, recalled: Recalled) -> bool:
        """Whether memory holds something about the question (``domain.relevance_gate``).

        A promoted record that matched the question's words (its name or type: "which
        decision ...") is evidence too: reviewed memory that names what is asked."""
        if any(d.by_words for d in recalled.derived):
            return True
        floors = relatedness_floors(self._embedder.space.model)
        return about(question, recalled.evidence, floors, self.lane.waiting(org_id))

    def _count_redacted(
        self,
        policy: MemoryPolicyContext,
        org_id: str,
        question: QueryWords,
        filters: SearchFilters | None,
    ) -> asyncio.Future[int]:
        """The redacted count, started now: it needs only the question, so its store read
        runs on the engine's threads while the retrieval runs here, not after it (1M
        chunks: 1-8 ms a search that waited at the end).

        After the organisation is prepared (its tables defined): an organisation's first
        search otherwise read the redactions before the retrieval had prepared it."""

        async def count() -> int:
            await self._readiness.ensure(org_id)
            return await withheld_redacted(self._store, policy, org_id, question, filters)

        return asyncio.ensure_future(count())

    # -- context pack ------------------------------------------------------

    async def context_pack(
        self, request: ContextRequest, policy: MemoryPolicyContext
    ) -> ContextPack:
        return (await self._context_pack(request, policy))[0]

    async def context_pack_explained(
        self, request: ContextRequest, policy: MemoryPolicyContext
    ) -> ExplainedPack:
        """``context_pack``, with each item's reasons as values besides its ``reason``."""
        pack, kept = await self._context_pack(request, policy)
        return ExplainedPack(pack=pack, reasons=_reasons_by_chunk(kept))

    async def _context_pack(
        self, request: ContextRequest, policy: MemoryPolicyContext
    ) -> tuple[ContextPack, list[Retrieved]]:
        question, recalled, redacted = await self._recall_for(
            request, policy, _PACK_CANDIDATES, depth=LEG_DEPTH, resolve_first=_PACK_FIRST
        )
        notes, withheld, derived = dict(recalled.notes), recalled.withheld, recalled.derived
        # a question nothing in memory is about gets a few items, not a budget of them
        gated = bool(recalled.found) and not self._about(request.org_id, question, recalled)
        found, below_floor = gate_pack(recalled.found, not gated)
        # the rendering (headers, names) is what fits the budget, not only the items' words
        kept, rendered, omitted = fit_rendered(
            found, request.token_budget, self._tokens.count, notes
        )
        if not gated and not omitted and recalled.unresolved:
            # every candidate fit, so the budget may take more: the next ones are read and
            # authorized only now (long turns or mail fill it with the first ones)
            more, more_notes, more_withheld = await self._recall.resolve(
                request, policy, recalled.unresolved
            )
            found, withheld = [*found, *more], withheld + more_withheld
            notes.update(more_notes)
            kept, rendered, omitted = fit_rendered(
                found, request.token_budget, self._tokens.count, notes
            )
        counts = {r.chunk.chunk_id: self._tokens.count(r.chunk.text) for r in kept}
        chosen = set(counts)
        groups = group_by_episode(kept)
        items = [
            _said(
                ContextItem,
                r,
                notes[r.chunk.chunk_id],
                token_count=counts[r.chunk.chunk_id],
                episode_occurred_at=_episode_time(group),
            )
            for group in groups
            for r in group
        ]
        self._note_read(
            policy,
            "context",
            request.query,
            [r.chunk for r in found if r.chunk.chunk_id in chosen],
            withheld,
        )
        pack = ContextPack(
            query=request.query,
            token_budget=request.token_budget,
            token_count=sum(counts.values()),
            encoding=self._tokens.encoding,
            items=items,
            omitted=omitted,
            withheld=withheld,
            withheld_redacted=await redacted,
            episodes=[
                EpisodeGroup(
                    source_id=group[0].chunk.source_id,
                    occurred_at=_episode_time(group),
                    chunk_ids=[r.chunk.chunk_id for r in group],
                    number=number,
                )
                for number, group in enumerate(groups, start=1)
            ],
            rendered=rendered,
            rendered_token_count=self._tokens.count(rendered),
            derived=derived,
            below_floor=below_floor,
            reason=NOTHING_RELEVANT if gated else None,
        )
        return pack, kept

    async def drop_organization(self, org_id: str) -> None:
        self.lane.forget(org_id)
        self._resumed.discard(org_id)
        await self._store.drop_organization(org_id)
        await self._index.drop(org_id)
        self._readiness.forget(org_id)

    async def close(self) -> None:
        await self.lane.stop()  # the batch in hand finishes; the rest stays pending
        await self._readiness.close()  # index snapshots saved (where the index keeps them)
        await self._audit.close()
        await self._store.close()


async def _beside(started: asyncio.Future[int], work: Awaitable[_T]) -> _T:
    """``work``'s answer; if it fails, ``started`` (a store read) is let finish first and
    its answer dropped: cancelling a read inside the embedded engine is never done."""
    try:
        return await work
    except BaseException:
        with contextlib.suppress(Exception):
            await started
        raise


def _signals(ranks: Mapping[str, int]) -> Signals:
    return Signals(
        lexical_rank=ranks.get(Signal.LEXICAL),
        vector_rank=ranks.get(Signal.VECTOR),
        episode_lexical_rank=ranks.get(Signal.EPISODE_LEXICAL),
        episode_vector_rank=ranks.get(Signal.EPISODE_VECTOR),
        neighbour_rank=ranks.get(Signal.NEIGHBOUR),
        subject_vector_rank=ranks.get(Signal.SUBJECT_VECTOR),
        entity_rank=ranks.get(Signal.ENTITY),
        window_rank=ranks.get(Signal.WINDOW),
        graph_rank=ranks.get(Signal.GRAPH),
        relation_rank=ranks.get(Signal.RELATION),
        entity_vector_rank=ranks.get(Signal.ENTITY_VECTOR),
    )


def _said(kind: type[_H], found: Retrieved, note: LifecycleNote, **more: Any) -> _H:
    """A search hit or a pack item: what both say of a chunk (``results.Hit``), and ``more``
    for the fields only the pack has."""
    chunk = found.chunk
    return kind(
        source_id=chunk.source_id,
        chunk_id=chunk.chunk_id,
        text=chunk.text,
        score=found.score,
        signals=_signals(found.ranks),
        scope=chunk.scope,
        scope_key=chunk.scope_key,
        occurred_at=chunk.occurred_at,
        created_at=chunk.created_at,
        role=chunk.role,
        turn_index=chunk.turn_index,
        speaker=chunk.speaker,
        reason=_reason(found),
        lifecycle=note.state,
        stale=note.stale,
        superseded_by=note.superseded_by,
        duplicate_of=note.duplicate_of,
        **more,
    )


def _episode_time(group: Sequence[Retrieved]) -> datetime | None:
    """When an episode happened: its earliest turn's time (the session's, where turns have none)."""
    return min((r.chunk.occurred_at for r in group if r.chunk.occurred_at), default=None)


def _reasons(found: Retrieved) -> list[RankReason]:
    """Every reason of a hit: the signals that found it, then the rules that placed it."""
    return [*found_by(found.ranks), *found.reasons]


def _reasons_by_chunk(found: Sequence[Retrieved]) -> dict[str, list[RankReason]]:
    return {r.chunk.chunk_id: _reasons(r) for r in found}


def _reason(found: Retrieved) -> str:
    return reason_text(_reasons(found))
