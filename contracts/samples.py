"""Hand-made records and vectors for the storage and index contract suites.

Small deterministic vectors (dimension 4) and fixed timestamps, so the
suites need no model and every expected answer can be worked out by hand.
"""

import math
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta, timezone

from application.ports.records import EmbeddedChunk, EmbeddingSpace, Vector
from domain.hashing import content_hash
from domain.models import Chunk, MetadataValue, Source
from domain.scopes import LifecycleState, MemoryScope, SourceType

__all__ = [
    "CREATED",
    "OCCURRED_OFFSET",
    "SPACE",
    "embedded",
    "make_chunk",
    "make_source",
    "memory",
    "unit",
]

SPACE = EmbeddingSpace(model="contract-model", dimension=4)
CREATED = datetime(2026, 3, 1, 12, 30, 45, 123456, tzinfo=UTC)
#: a non-UTC offset, so a store that keeps only UTC instants is caught
OCCURRED_OFFSET = timezone(timedelta(hours=5, minutes=30))


def unit(vector: Sequence[float]) -> Vector:
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector]


def make_source(
    source_id: str,
    org_id: str,
    *,
    content: str = "Raw memory text, kept verbatim.",
    scope: MemoryScope = MemoryScope.PRIVATE,
    scope_key: str | None = "u1",
    metadata: dict[str, MetadataValue] | None = None,
    occurred_at: datetime | None = None,
    source_uri: str | None = None,
    lifecycle: LifecycleState = LifecycleState.ACTIVE,
) -> Source:
    return Source(
        source_id=source_id,
        org_id=org_id,
        scope=scope,
        scope_key=scope_key,
        source_type=SourceType.NOTE,
        source_uri=source_uri,
        content=content,
        content_hash=content_hash(content),
        metadata=metadata or {},
        created_by="user-1",
        created_at=CREATED,
        occurred_at=occurred_at,
        lifecycle=lifecycle,
    )


def make_chunk(
    chunk_id: str,
    source: Source,
    *,
    text: str | None = None,
    ordinal: int = 0,
    lifecycle: LifecycleState = LifecycleState.ACTIVE,
    scope: MemoryScope | None = None,
    scope_key: str | None = None,
    role: str | None = None,
    turn_index: int | None = None,
    speaker: str | None = None,
) -> Chunk:
    body = text if text is not None else f"chunk {chunk_id} of {source.source_id}"
    return Chunk(
        chunk_id=chunk_id,
        source_id=source.source_id,
        org_id=source.org_id,
        ordinal=ordinal,
        text=body,
        start=ordinal * 100,
        end=ordinal * 100 + len(body),
        content_hash=content_hash(body),
        scope=scope or source.scope,
        scope_key=scope_key if scope is not None else source.scope_key,
        created_at=source.created_at,
        occurred_at=source.occurred_at,
        lifecycle=lifecycle,
        role=role,
        turn_index=turn_index,
        speaker=speaker,
    )


def embedded(chunk: Chunk, vector: Sequence[float] | None = None) -> EmbeddedChunk:
    """A chunk with a vector; by default one derived from its ordinal."""
    if vector is None:
        vector = unit([1.0, 0.25 * (chunk.ordinal + 1), 0.5, -0.125 * chunk.ordinal])
    return EmbeddedChunk(chunk=chunk, vector=list(vector))


def memory(
    source_id: str, org_id: str, chunk_ids: Sequence[str]
) -> tuple[Source, list[EmbeddedChunk]]:
    """A source and its embedded chunks, ready for ``save_memory``."""
    source = make_source(source_id, org_id)
    chunks = [embedded(make_chunk(cid, source, ordinal=n)) for n, cid in enumerate(chunk_ids)]
    return source, chunks
