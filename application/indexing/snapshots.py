"""The port of a derived index that persists snapshots of itself, and what it reports.

Why a separate port: only a derived index (the in-process one) can be
snapshotted; the store's native index is the store. A snapshot is a cache
that is checked, never trusted blindly: readiness (application.indexing.snapshot_keeper)
loads it only when its manifest matches the embedding space and the format,
its files match their checksums and its change epoch is the store's, then
catches it up from the store's change sequence (application.ports.changes); in
every other case it rebuilds from the store and says why.
"""

from datetime import datetime
from enum import StrEnum
from typing import Protocol, runtime_checkable

import msgspec

from application.ports import RetrievalIndex
from application.ports.changes import ChangePosition
from application.ports.records import EmbeddingSpace, IndexEntry

__all__ = ["SnapshotInfo", "SnapshotLoad", "SnapshotOutcome", "SnapshottingIndex"]


class SnapshotOutcome(StrEnum):
    """What opening an organisation's snapshot gave: loaded, or why it was not used."""

    LOADED = "loaded"
    MISSING = "missing"
    CORRUPT = "corrupt"
    OTHER_MODEL = "other_model"
    OTHER_SCHEMA = "other_schema"
    #: written against another life of the store's sequence (organisation dropped and
    #: recreated, store restored from an older backup): its position means nothing here
    OTHER_STORE = "other_store"


class SnapshotInfo(msgspec.Struct, frozen=True, kw_only=True):
    """A snapshot on disk: the position it reflects, when it was written, its size."""

    position: ChangePosition
    written_at: datetime
    bytes: int
    rows: int

    def __post_init__(self) -> None:
        if self.bytes < 0 or self.rows < 0:
            raise ValueError("bytes and rows must be >= 0")


class SnapshotLoad(msgspec.Struct, frozen=True, kw_only=True):
    outcome: SnapshotOutcome
    #: the loaded snapshot (outcome LOADED only)
    info: SnapshotInfo | None = None
    #: why it was not used, for the log line (never memory text)
    detail: str = ""

    def __post_init__(self) -> None:
        if (self.outcome is SnapshotOutcome.LOADED) != (self.info is not None):
            raise ValueError("a loaded snapshot, and only one, has its info")


@runtime_checkable
class SnapshottingIndex(RetrievalIndex, Protocol):
    """A RetrievalIndex that can restore itself from a snapshot and write one."""

    @property
    def snapshots_enabled(self) -> bool:
        """False where there is nowhere to write (an in-memory store): nothing is persisted."""
        ...

    async def restore(self, org_id: str, space: EmbeddingSpace) -> SnapshotLoad:
        """Load the organisation's snapshot if it is sound and of ``space``; the index is
        then ready at the snapshot's position, behind the store by the changes since."""
        ...

    async def catch_up(self, org_id: str, source_ids: list[str], entries: list[IndexEntry]) -> None:
        """Make these sources' rows what the store holds now (``entries``: all their current
        chunks; a source without any is gone). Idempotent: a change already applied
        through the write path is applied again to the same result."""
        ...

    def position(self, org_id: str) -> ChangePosition | None:
        """The change position the organisation's rows are known to reflect."""
        ...

    def set_position(self, org_id: str, position: ChangePosition) -> None: ...

    def unsaved_changes(self, org_id: str) -> int:
        """Rows written through since the last snapshot (what a periodic save waits for)."""
        ...

    def unsaved_removals(self, org_id: str) -> int:
        """Sources removed (redacted, deleted) since the last snapshot, whose text the
        snapshot on disk still holds: a save starts at once to take it off the disk."""
        ...

    def removal_orgs(self) -> list[str]:
        """Organisations with ``unsaved_removals``, loaded in this process or not."""
        ...

    async def save_snapshot(self, org_id: str, space: EmbeddingSpace) -> SnapshotInfo | None:
        """Write the organisation's rows at its current ``position`` (atomically: a crash
        leaves the previous snapshot); None when there is nothing to write."""
        ...

    def snapshot_info(self, org_id: str) -> SnapshotInfo | None:
        """The organisation's snapshot on disk, if any (status)."""
        ...
