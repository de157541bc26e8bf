"""One organisation's rows in the reference store (shared by its modules)."""

import uuid
from collections.abc import Iterable

from application.ports.records import EmbeddingSpace, IndexEntry, Vector
from domain.models import Chunk, Source

__all__ = ["OrgMemory"]


class OrgMemory:
    def __init__(self, space: EmbeddingSpace) -> None:
        self.space = space
        self.sources: dict[str, Source] = {}
        self.chunks: dict[str, Chunk] = {}
        #: chunk id -> vector; a chunk without one is pending or dead-lettered
        self.vectors: dict[str, Vector] = {}
        self.chunk_order: list[str] = []
        #: each chunk's recall key (domain.lifecycle), kept beside it as an index row would be
        self.recall: dict[str, str] = {}
        self.cache: dict[tuple[str, str], Vector] = {}
        #: chunk id -> failed attempts, for chunks waiting for a vector (the durable queue)
        self.pending: dict[str, int] = {}
        #: chunk id -> attempts, for chunks given up on (the dead letter)
        self.failed: dict[str, int] = {}
        #: the change sequence (application.ports.changes): its epoch, head, each source's latest
        self.epoch = uuid.uuid4().hex
        self.sequence = 0
        self.changed_at: dict[str, int] = {}
        #: a re-embed's vectors of the next model, by chunk id: (model, vector)
        self.staged: dict[str, tuple[str, Vector]] = {}
        #: the re-embed's saved progress (adapters.inmemory.vector_staging)
        self.reembed_job: object | None = None

    def changed(self, source_ids: Iterable[str]) -> None:
        """One write changed these sources: one step of the sequence stamps them all."""
        stamped = list(dict.fromkeys(source_ids))
        if not stamped:
            return
        self.sequence += 1
        for source_id in stamped:
            self.changed_at[source_id] = self.sequence

    def index_entry(self, chunk_id: str) -> IndexEntry:
        """What a derived index holds of this chunk (its current vector, recall, facets)."""
        chunk = self.chunks[chunk_id]
        vector = self.vectors.get(chunk_id)
        return IndexEntry.of_chunk(
            chunk,
            None if vector is None else list(vector),
            self.recall[chunk_id],
            self.sources.get(chunk.source_id),
        )

    def forget_chunk(self, chunk_id: str) -> None:
        del self.chunks[chunk_id], self.recall[chunk_id]
        self.vectors.pop(chunk_id, None)
        self.pending.pop(chunk_id, None)
        self.failed.pop(chunk_id, None)
        self.staged.pop(chunk_id, None)
        self.chunk_order.remove(chunk_id)
