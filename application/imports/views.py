"""An import record as callers see it: the same JSON over HTTP, the CLI's ``--json`` and MCP.

Why a view and not the stored job: the stored record carries the job's
authority (key and principal ids), which is the service's business, and the
caller reads the target as one object and the problems as ``skipped``.
"""

from datetime import datetime

import msgspec

from application.imports.jobs import (
    ImportCounters,
    ImportJob,
    ImportProblem,
    ImportStatus,
    ImportWarning,
)
from domain.reasons import ReasonCode
from domain.scopes import MemoryScope

__all__ = ["ImportList", "ImportTarget", "ImportView", "view_of"]


class ImportTarget(msgspec.Struct, frozen=True, kw_only=True):
    scope: MemoryScope
    scope_key: str | None


class ImportView(msgspec.Struct, frozen=True, kw_only=True):
    id: str
    adapter: str
    status: ImportStatus
    target: ImportTarget
    #: the archive, as resolved (in the organisation's import area, or an upload)
    path: str
    counters: ImportCounters
    #: where a resume continues; None before the first batch
    checkpoint: str | None
    #: records not written (skipped by the adapter or refused), with reasons; bounded
    skipped: list[ImportProblem]
    #: why the import stopped, when it failed
    error: ReasonCode | None
    #: set on an import that completed having read no record (``no_records_read``)
    warning: ImportWarning | None
    created_at: datetime
    updated_at: datetime


class ImportList(msgspec.Struct, frozen=True, kw_only=True):
    """The caller's imports, newest first (an object, for MCP)."""

    imports: list[ImportView]


def view_of(job: ImportJob, status: ImportStatus | None = None) -> ImportView:
    return ImportView(
        id=job.import_id,
        adapter=job.adapter,
        status=status or job.status,
        target=ImportTarget(scope=job.scope, scope_key=job.scope_key),
        path=job.path,
        counters=job.counters,
        checkpoint=job.checkpoint,
        skipped=list(job.problems),
        error=job.error,
        warning=job.warning,
        created_at=job.created_at,
        updated_at=job.updated_at,
    )
