"""What the write path hands the store, and what the embedding lane reads back.

A chunk may be saved before its vector exists. Its embedding state lives in the
store beside it, so the store itself is the durable queue: a process that
stops with chunks pending finds them again on the next start.
"""

from datetime import datetime
from enum import StrEnum

import msgspec

from application.ports.records import Vector
from domain.models import Chunk, Source

__all__ = ["EmbeddingCounts", "EmbeddingState", "MemoryWrite", "PendingChunk", "WaitFor"]


class EmbeddingState(StrEnum):
    """Where a chunk's vector is: waiting, in the indexes, or given up on (the dead letter)."""

    PENDING = "pending"
    INDEXED = "indexed"
    FAILED = "failed"


class WaitFor(StrEnum):
    """How long a write waits: until it is stored (and searchable by its words), or until
    its vectors are searchable too."""

    STORED = "stored"
    INDEXED = "indexed"


class MemoryWrite(msgspec.Struct, frozen=True, kw_only=True):
    """One source and its chunks, as one unit of a bulk write.

    ``vectors`` holds the vectors already known at write time (the embedding
    cache had them), by chunk id; every other chunk is saved pending.
    """

    source: Source
    chunks: list[Chunk]
    vectors: dict[str, Vector] = msgspec.field(default_factory=dict)
    #: the model that made ``vectors``, where the writer knows it: the store refuses the
    #: write if it now serves another (a re-embed switched while the write was on its way)
    model: str | None = None

    def __post_init__(self) -> None:
        ids = {c.chunk_id for c in self.chunks}
        if len(ids) != len(self.chunks):
            raise ValueError("a chunk id appears twice")
        if not set(self.vectors) <= ids:
            raise ValueError("a vector names a chunk the write does not hold")

    @property
    def pending(self) -> list[Chunk]:
        return [c for c in self.chunks if c.chunk_id not in self.vectors]


class PendingChunk(msgspec.Struct, frozen=True, kw_only=True):
    """What the lane needs of a chunk to embed it; the text never leaves the process."""

    chunk_id: str
    text: str
    content_hash: str
    #: when the chunk was written (its queue age)
    created_at: datetime
    #: failed attempts so far (kept in the store, so a restart does not reset them)
    attempts: int = 0


class EmbeddingCounts(msgspec.Struct, frozen=True, kw_only=True):
    """The queue of one organisation: chunks waiting, dead-lettered, and the oldest wait."""

    pending: int = 0
    failed: int = 0
    oldest_pending_at: datetime | None = None
