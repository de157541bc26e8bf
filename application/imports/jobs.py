"""The import record: what an import is doing, how far it got, and on whose authority.

Why persisted: an import outlives the request (or process) that started it.
Its checkpoint says where a resume continues, its counters and bounded skip
list say what happened, and its ``authority`` names the key and principal it
works for, so every batch can be re-authorized instead of trusting a
context captured hours earlier (seed §5.8: jobs carry authority explicitly).
"""

from datetime import datetime
from enum import StrEnum

import msgspec

from domain.policy import Surface
from domain.reasons import ReasonCode
from domain.scopes import MemoryScope

__all__ = [
    "ENDED",
    "FINISHED",
    "MAX_LISTED_PROBLEMS",
    "ImportCounters",
    "ImportJob",
    "ImportProblem",
    "ImportStatus",
    "ImportWarning",
    "JobAuthority",
]

#: skipped and failed records kept on the import record; the counters keep counting
MAX_LISTED_PROBLEMS = 100


class ImportStatus(StrEnum):
    PENDING = "pending"
    RUNNING = "running"
    PAUSED = "paused"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"


#: an import in one of these never runs again
FINISHED = frozenset({ImportStatus.COMPLETED, ImportStatus.CANCELLED})
#: an import in one of these stopped on its own or was stopped (a failed one may be resumed)
ENDED = frozenset({ImportStatus.COMPLETED, ImportStatus.FAILED, ImportStatus.CANCELLED})


class ImportCounters(msgspec.Struct, frozen=True, kw_only=True):
    read: int = 0
    written: int = 0
    duplicates: int = 0
    skipped: int = 0
    failed: int = 0
    #: writes whose vectors are not computed yet (always 0 until the embedding lane exists)
    embedding_pending: int = 0


class ImportProblem(msgspec.Struct, frozen=True, kw_only=True):
    """A record not written: skipped by the adapter, or refused by ``remember``."""

    record_id: str
    #: a ``SkipReason`` (adapter) or a ``ReasonCode`` (remember refused it)
    reason: str
    detail: str


class ImportWarning(msgspec.Struct, frozen=True, kw_only=True):
    """Why an import that ended without an error still wants a look (``no_records_read``)."""

    reason: ReasonCode
    detail: str


class JobAuthority(msgspec.Struct, frozen=True, kw_only=True):
    """Whom the job works for: re-checked against the control plane before each batch."""

    org_id: str
    principal_id: str
    #: the key that started it; revoking that key stops the job
    key_id: str | None = None
    surface: Surface = Surface.JOB


class ImportJob(msgspec.Struct, frozen=True, kw_only=True):
    import_id: str
    org_id: str
    adapter: str
    #: the archive, resolved (in its organisation's import area, or an upload)
    path: str
    #: the upload's folder, when the archive was uploaded: removed when the import ends
    upload: str | None = None
    scope: MemoryScope
    scope_key: str | None
    authority: JobAuthority | None
    status: ImportStatus = ImportStatus.PENDING
    counters: ImportCounters = msgspec.field(default_factory=ImportCounters)
    #: the last item handled; None before the first
    checkpoint: str | None = None
    problems: list[ImportProblem] = msgspec.field(default_factory=list)
    #: why the import stopped, when it failed
    error: ReasonCode | None = None
    #: what a completed import wants the caller to know (it read no record at all)
    warning: ImportWarning | None = None
    created_at: datetime
    updated_at: datetime

    def __post_init__(self) -> None:
        if self.created_at.tzinfo is None or self.updated_at.tzinfo is None:
            raise ValueError("times must carry a timezone offset")
        if len(self.problems) > MAX_LISTED_PROBLEMS:
            raise ValueError(f"at most {MAX_LISTED_PROBLEMS} problems are kept")
        if self.authority is not None and self.authority.org_id != self.org_id:
            raise ValueError("a job works inside its own organisation")
