"""The use cases: remember, search and context pack.

Every surface (HTTP, CLI, MCP, jobs) calls these; none of them talks to a
store or a model directly.
"""

import asyncio
from collections.abc import Sequence

from application.commands import ContextRequest, RememberRequest, SearchRequest
from application.embedding import QueryVectorCache, embed_for_memory
from application.ports import (
    Clock,
    Embedder,
    IdGenerator,
    MemoryStore,
    RetrievalIndex,
    TokenCounter,
)
from application.readiness import OrgReadiness
from application.records import EmbeddedChunk, EmbeddingSpace, IndexEntry, StoreInfo
from application.results import (
    ContextItem,
    ContextPack,
    RememberResult,
    SearchHit,
    SearchResults,
    Signals,
)
from domain.chunking import ChunkingRules
from domain.composition import compose_memory
from domain.explain import inclusion_reason
from domain.fusion import FusedHit, rrf_merge
from domain.models import Chunk
from domain.packing import PackCandidate, select_within_budget
from domain.query_terms import meaningful_query

__all__ = ["MemoryService"]

#: each signal contributes this many candidates per requested result (at least the floor)
_CANDIDATES_PER_RESULT = 5
_MIN_CANDIDATES = 50
#: a context pack considers this many fused candidates before filling its budget
_PACK_CANDIDATES = 40


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
        chunking: ChunkingRules | None = None,
    ) -> None:
        self._store = store
        self._index = index
        self._embedder = embedder
        self._tokens = tokens
        self._clock = clock
        self._ids = ids
        self._chunking = chunking or ChunkingRules()
        self._readiness = OrgReadiness(store, index, embedder)
        self._query_vectors = QueryVectorCache(embedder)

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
        """Prepare an organisation ahead of traffic (migrations, index warm-up)."""
        await self._readiness.ensure(org_id)

    # -- remember ----------------------------------------------------------

    async def remember(self, request: RememberRequest) -> RememberResult:
        request.validate()
        await self._readiness.ensure(request.org_id)
        source, chunks = compose_memory(
            new_id=self._ids.new_id,
            org_id=request.org_id,
            actor_id=request.actor_id,
            content=request.content,
            now=self._clock.now(),
            scope=request.scope,
            scope_key=request.scope_key,
            source_type=request.source_type,
            source_uri=request.source_uri,
            metadata=request.metadata,
            occurred_at=request.occurred_at,
            rules=self._chunking,
            turns=request.turns,
        )
        # Embed before writing: a model failure then leaves nothing half-written,
        # and the store writes the source first, then its chunks, in one transaction.
        vectors, cached = await embed_for_memory(
            self._store, self._embedder, request.org_id, [c.text for c in chunks]
        )
        embedded = [EmbeddedChunk(chunk=c, vector=v) for c, v in zip(chunks, vectors, strict=True)]
        await self._store.save_memory(source, embedded)
        await self._index.add(request.org_id, [IndexEntry.of(e) for e in embedded])
        return RememberResult(
            source_id=source.source_id,
            chunk_ids=[c.chunk_id for c in chunks],
            cached_embeddings=cached,
        )

    # -- search ------------------------------------------------------------

    async def _fused(self, request: SearchRequest | ContextRequest, depth: int) -> list[FusedHit]:
        await self._readiness.ensure(request.org_id)
        vector = await self._query_vectors.vector_for(request.query)
        lexical, semantic = await asyncio.gather(
            self._index.lexical(
                request.org_id, meaningful_query(request.query), depth, request.where
            ),
            self._index.vector(request.org_id, vector, depth, request.where),
        )
        return rrf_merge(
            {"lexical": [h.item_id for h in lexical], "vector": [h.item_id for h in semantic]}
        )

    async def _resolve(
        self, request: SearchRequest | ContextRequest, fused: Sequence[FusedHit]
    ) -> list[tuple[FusedHit, Chunk]]:
        """Load the chunks and check each again: the index may lag a correction."""
        chunks = await self._store.get_chunks(request.org_id, [h.item_id for h in fused])
        resolved = []
        for hit in fused:
            chunk = chunks.get(hit.item_id)
            # admits() also refuses every lifecycle but active (hidden, redacted, deleted ...)
            if chunk is not None and request.where.admits(
                chunk.scope, chunk.scope_key, chunk.lifecycle
            ):
                resolved.append((hit, chunk))
        return resolved

    async def search(self, request: SearchRequest) -> SearchResults:
        request.validate()
        depth = max(request.limit * _CANDIDATES_PER_RESULT, _MIN_CANDIDATES)
        fused = await self._fused(request, depth)
        resolved = await self._resolve(request, fused[: request.limit])
        return SearchResults(
            results=[
                SearchHit(
                    source_id=chunk.source_id,
                    chunk_id=chunk.chunk_id,
                    text=chunk.text,
                    score=hit.score,
                    signals=_signals(hit),
                    scope=chunk.scope,
                    scope_key=chunk.scope_key,
                    occurred_at=chunk.occurred_at,
                    created_at=chunk.created_at,
                )
                for hit, chunk in resolved
            ]
        )

    # -- context pack ------------------------------------------------------

    async def context_pack(self, request: ContextRequest) -> ContextPack:
        request.validate()
        fused = await self._fused(request, max(_PACK_CANDIDATES, _MIN_CANDIDATES))
        resolved = await self._resolve(request, fused[:_PACK_CANDIDATES])
        counts = {chunk.chunk_id: self._tokens.count(chunk.text) for _, chunk in resolved}
        selection = select_within_budget(
            [
                PackCandidate(item_id=c.chunk_id, token_count=counts[c.chunk_id])
                for _, c in resolved
            ],
            request.token_budget,
        )
        chosen = set(selection.chosen)
        items = [
            ContextItem(
                source_id=chunk.source_id,
                chunk_id=chunk.chunk_id,
                text=chunk.text,
                reason=inclusion_reason(hit.ranks),
                score=hit.score,
                signals=_signals(hit),
                token_count=counts[chunk.chunk_id],
                scope=chunk.scope,
                scope_key=chunk.scope_key,
                occurred_at=chunk.occurred_at,
                created_at=chunk.created_at,
            )
            for hit, chunk in resolved
            if chunk.chunk_id in chosen
        ]
        return ContextPack(
            query=request.query,
            token_budget=request.token_budget,
            token_count=selection.token_count,
            encoding=self._tokens.encoding,
            items=items,
            omitted=selection.skipped_over_budget,
        )

    async def drop_organization(self, org_id: str) -> None:
        await self._store.drop_organization(org_id)
        await self._index.drop(org_id)
        self._readiness.forget(org_id)

    async def close(self) -> None:
        await self._store.close()


def _signals(hit: FusedHit) -> Signals:
    return Signals(lexical_rank=hit.ranks.get("lexical"), vector_rank=hit.ranks.get("vector"))
