"""From raw content to the records that keep it: one source and its chunks.

One rule for every writer (the remember use case, importers, benchmarks), so
a chunk always carries its source's id, scope and times.
"""

from collections.abc import Callable, Mapping
from datetime import datetime

from domain.chunking import ChunkingRules, split_into_chunks
from domain.hashing import content_hash
from domain.models import Chunk, MetadataValue, Source
from domain.scopes import MemoryScope, SourceType

__all__ = ["compose_memory"]


def compose_memory(
    *,
    new_id: Callable[[], str],
    org_id: str,
    actor_id: str,
    content: str,
    now: datetime,
    scope: MemoryScope = MemoryScope.PRIVATE,
    scope_key: str | None = None,
    source_type: SourceType = SourceType.NOTE,
    source_uri: str | None = None,
    metadata: Mapping[str, MetadataValue] | None = None,
    occurred_at: datetime | None = None,
    rules: ChunkingRules | None = None,
) -> tuple[Source, list[Chunk]]:
    source = Source(
        source_id=new_id(),
        org_id=org_id,
        scope=scope,
        scope_key=scope_key,
        source_type=source_type,
        source_uri=source_uri,
        content=content,
        content_hash=content_hash(content),
        metadata=dict(metadata or {}),
        created_by=actor_id,
        created_at=now,
        occurred_at=occurred_at,
    )
    chunks = [
        Chunk(
            chunk_id=new_id(),
            source_id=source.source_id,
            org_id=org_id,
            ordinal=ordinal,
            text=span.text,
            start=span.start,
            end=span.end,
            content_hash=content_hash(span.text),
            scope=scope,
            scope_key=scope_key,
            created_at=now,
            occurred_at=occurred_at,
        )
        for ordinal, span in enumerate(split_into_chunks(content, rules))
    ]
    return source, chunks
