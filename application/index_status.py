"""What the status shows of an organisation's retrieval index: kind, snapshot, catch-up lag.

Kept apart from ``diagnostics`` so that the index's persistence (issue 18)
adds one field to the status, not a branch per index type. Reads no memory:
counts, sizes and ages only.
"""

from datetime import UTC, datetime

import msgspec

from application.index_snapshots import SnapshottingIndex
from application.ports import MemoryStore, RetrievalIndex
from domain.errors import TesseraError

__all__ = ["IndexStatus", "index_status"]


class IndexStatus(msgspec.Struct, frozen=True, kw_only=True):
    #: "exact" (the in-process scan) or "native" (the store's own index)
    kind: str
    #: the snapshot on disk (None: none written yet, or an index that keeps none)
    snapshot_bytes: int | None = None
    snapshot_rows: int | None = None
    snapshot_age_seconds: float | None = None
    #: changes the store holds that the snapshot does not: what a restart now would
    #: read back from the store (this process's index has them through its writes)
    catch_up_lag: int | None = None


async def index_status(store: MemoryStore, index: RetrievalIndex, org_id: str) -> IndexStatus:
    kind = "native" if index.name == "surreal" else "exact"
    if not isinstance(index, SnapshottingIndex) or not index.snapshots_enabled:
        return IndexStatus(kind=kind)
    try:
        head = await store.change_position(org_id)
    except TesseraError:
        return IndexStatus(kind=kind)
    info = index.snapshot_info(org_id)
    same = info is not None and info.position.epoch == head.epoch
    return IndexStatus(
        kind=kind,
        snapshot_bytes=None if info is None else info.bytes,
        snapshot_rows=None if info is None else info.rows,
        snapshot_age_seconds=None
        if info is None
        else max((datetime.now(UTC) - info.written_at).total_seconds(), 0.0),
        catch_up_lag=max(head.sequence - info.position.sequence, 0) if same and info else None,
    )
