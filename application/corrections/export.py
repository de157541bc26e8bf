"""Export: everything the caller may read, source by source, as inspect would show it.

Each record carries the source's metadata, lifecycle, marks, links and
correction history, and its text only where inspect would show it (the
redaction's summary for a redacted source, nothing for a tombstone). Never
vectors, never chunks' text beyond the source's own. An export may be read
in pages (``after``, ``limit``), as an agent's tool must be.
"""

from collections import Counter
from collections.abc import AsyncIterator
from datetime import datetime

import msgspec

from application.ports import MemoryStore
from application.trust.audit import AuditTrail
from application.trust.guard import correct_decision, require_org
from application.trust.source_lifecycle import history_for, inspect_exposure, is_owner
from domain.errors import InvalidInputError
from domain.lifecycle import Exposure, Mark
from domain.models import CorrectionRecord, MetadataValue, Source
from domain.policy import MemoryPolicyContext, authorize_read
from domain.reasons import ReasonCode
from domain.scopes import LifecycleState, MemoryScope, ScopeRef, SourceType

__all__ = ["ExportPreview", "ExportRecord", "Exporter"]

_PAGE = 1_000


class ExportRecord(msgspec.Struct, frozen=True, kw_only=True):
    source_id: str
    scope: MemoryScope
    scope_key: str | None
    source_type: SourceType
    source_uri: str | None
    version: int
    content_hash: str
    created_by: str
    created_at: datetime
    occurred_at: datetime | None
    lifecycle: LifecycleState
    marks: list[Mark]
    superseded_by: str | None
    duplicate_of: str | None
    exposure: Exposure
    metadata: dict[str, MetadataValue]
    content: str | None
    corrections: list[CorrectionRecord]


class ExportPreview(msgspec.Struct, frozen=True, kw_only=True):
    sources: int
    with_text: int
    by_lifecycle: dict[str, int]
    format: str = "application/x-ndjson"


class Exporter:
    def __init__(self, *, store: MemoryStore, audit: AuditTrail) -> None:
        self._store = store
        self._audit = audit

    def _record(self, ctx: MemoryPolicyContext, source: Source) -> ExportRecord | None:
        ref = ScopeRef(source.scope, source.scope_key)
        if not authorize_read(ctx, ref).allowed:
            return None
        may_correct = correct_decision(ctx, source).allowed
        shown = inspect_exposure(ctx, source, may_correct)
        if shown is Exposure.NOTHING:
            return None
        return ExportRecord(
            source_id=source.source_id,
            scope=source.scope,
            scope_key=source.scope_key,
            source_type=source.source_type,
            source_uri=source.source_uri,
            version=source.version,
            content_hash=source.content_hash,
            created_by=source.created_by,
            created_at=source.created_at,
            occurred_at=source.occurred_at,
            lifecycle=source.lifecycle,
            marks=sorted(source.marks),
            superseded_by=source.superseded_by,
            duplicate_of=source.duplicate_of,
            exposure=shown,
            metadata=source.metadata if shown is Exposure.TEXT else {},
            content=source.content if shown in (Exposure.TEXT, Exposure.SUMMARY) else None,
            corrections=history_for(source, may_correct or is_owner(ctx, source)),
        )

    async def records(
        self, ctx: MemoryPolicyContext, after: str | None = None
    ) -> AsyncIterator[ExportRecord]:
        """What the caller may read, in source-id order, strictly after ``after``."""
        while True:
            page = await self._store.list_sources(ctx.org_id, after, _PAGE)
            for source in page:
                record = self._record(ctx, source)
                if record is not None:
                    yield record
            if len(page) < _PAGE:
                return
            after = page[-1].source_id

    async def preview(self, ctx: MemoryPolicyContext) -> ExportPreview:
        require_org(ctx, ctx.org_id)
        states: Counter[str] = Counter()
        with_text = 0
        async for record in self.records(ctx):
            states[str(record.lifecycle)] += 1
            with_text += record.content is not None
        total = sum(states.values())
        self._audit.note(ctx, "preview_export", counts={"sources": total, "with_text": with_text})
        return ExportPreview(sources=total, with_text=with_text, by_lifecycle=dict(states))

    def export(
        self, ctx: MemoryPolicyContext, *, after: str | None = None, limit: int | None = None
    ) -> AsyncIterator[bytes]:
        """JSON lines, one per source; the caller is checked before the first line.

        ``after`` and ``limit`` page through it (a tool's answer must stay bounded):
        at most ``limit`` sources, strictly after the source id ``after``."""
        require_org(ctx, ctx.org_id)
        if limit is not None and limit < 1:
            raise InvalidInputError(ReasonCode.INVALID_REQUEST, "limit must be at least 1")
        return self._lines(ctx, after, limit)

    async def _lines(
        self, ctx: MemoryPolicyContext, after: str | None, limit: int | None
    ) -> AsyncIterator[bytes]:
        """The audit receipt, written once the last line went out, counts them."""
        encode = msgspec.json.Encoder().encode
        count = 0
        async for record in self.records(ctx, after):
            count += 1
            yield encode(record) + b"\n"
            if count == limit:
                break
        self._audit.note(ctx, "export", counts={"sources": count})
