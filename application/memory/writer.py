"""The one write path: sources and chunks committed, lexically indexed, queued for vectors.

``remember``, imports and the benchmarks all write through ``MemoryWriter.write``;
nothing else saves memory. What it does, in order:

1. looks up the vectors it already has (the caller's, then the embedding cache)
   so a text seen before is indexed at once;
2. saves every source and chunk of the batch in one store transaction (chunks
   without a vector are saved ``pending``, the durable queue);
3. adds them to the retrieval index (lexical now, vector where known);
4. hands the pending chunks to the embedding lane, never waiting for it unless
   the caller asked to (``wait``).

It checks no policy: its callers authorised the write (``remember`` per
request, an import per batch against its stored authority).
"""

from collections.abc import Mapping, Sequence

import msgspec

from application.enrichment.lane import EmbeddingLane
from application.ports import Embedder, MemoryStore, RetrievalIndex
from application.ports.records import IndexEntry, Vector
from application.ports.writes import MemoryWrite, PendingChunk
from domain.errors import ConflictError
from domain.models import Chunk, Source, chunk_recall
from domain.reasons import ReasonCode

__all__ = ["MemoryWriter", "WriteOutcome"]


class WriteOutcome(msgspec.Struct, frozen=True, kw_only=True):
    #: chunks whose vectors were known at write time (the cache or the caller had them)
    cached: int
    #: chunks saved pending, queued for the lane (0 once waited for)
    pending: int


class MemoryWriter:
    def __init__(
        self,
        *,
        store: MemoryStore,
        index: RetrievalIndex,
        embedder: Embedder,
        lane: EmbeddingLane,
    ) -> None:
        self._store = store
        self._index = index
        self._embedder = embedder
        self.lane = lane

    async def _known(
        self,
        org_id: str,
        memories: Sequence[tuple[Source, Sequence[Chunk]]],
        known: Mapping[str, Vector] | None,
    ) -> list[MemoryWrite]:
        """The writes, with the vectors known now and the model they belong to."""
        model = self._embedder.space.model
        vectors = dict(known or {})
        hashes = sorted({c.content_hash for _, cs in memories for c in cs} - set(vectors))
        if hashes:
            vectors.update(await self._store.cached_embeddings(org_id, model, hashes))
        return [
            MemoryWrite(
                source=source,
                chunks=list(chunks),
                vectors={
                    c.chunk_id: vectors[c.content_hash] for c in chunks if c.content_hash in vectors
                },
                model=model,
            )
            for source, chunks in memories
        ]

    async def write(
        self,
        org_id: str,
        memories: Sequence[tuple[Source, Sequence[Chunk]]],
        *,
        wait: bool = False,
        backpressure: bool = False,
        known: Mapping[str, Vector] | None = None,
        tag: str | None = None,
    ) -> WriteOutcome:
        """Write a batch of one organisation's memories.

        ``wait``: return only once every chunk is searchable by vector.
        ``backpressure``: first wait while the organisation's embedding backlog is
        over its limit (imports; a single remember never waits for the lane).
        ``known``: vectors the caller already has, by text hash (benchmark fills).
        ``tag``: names the writer (an import id) whose outstanding chunks the lane counts.
        """
        if not memories:
            return WriteOutcome(cached=0, pending=0)
        if backpressure:
            await self.lane.room(org_id)
        writes = await self._known(org_id, memories, known)
        try:
            await self._store.save_memories(writes)
        except ConflictError as exc:
            # a re-embed switched the model between the cache read and the save: once more,
            # with the new model's cache (the caller's vectors are of the old one)
            if exc.reason is not ReasonCode.EMBEDDER_MISMATCH or writes[0].model == (
                self._embedder.space.model
            ):
                raise
            writes = await self._known(org_id, memories, None)
            await self._store.save_memories(writes)
        await self._index.add(
            org_id,
            [
                IndexEntry.of_chunk(
                    c, w.vectors.get(c.chunk_id), chunk_recall(w.source, c), w.source
                )
                for w in writes
                for c in w.chunks
            ],
        )
        pending = [
            PendingChunk(
                chunk_id=c.chunk_id,
                text=c.text,
                content_hash=c.content_hash,
                created_at=c.created_at,
            )
            for w in writes
            for c in w.pending
        ]
        cached = sum(len(w.vectors) for w in writes)
        # every pending chunk's text was looked up in the cache by ``_known`` just now
        waiting = self.lane.enqueue(org_id, pending, wait=wait, tag=tag, looked_up=True)
        if waiting is not None:
            await waiting
            return WriteOutcome(cached=cached, pending=0)
        return WriteOutcome(cached=cached, pending=len(pending))
