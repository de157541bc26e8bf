"""What the status shows of an organisation's retrieval index: kind, snapshot, catch-up lag,
and what this process holds of it in memory.

Kept apart from ``diagnostics`` so that the index's persistence
adds one field to the status, not a branch per index type. Reads no memory:
counts, sizes and ages only.
"""

from datetime import UTC, datetime

import msgspec

from application.indexing.residency import ResidentIndex
from application.indexing.snapshots import SnapshottingIndex
from application.ports import MemoryStore, RetrievalIndex
from domain.errors import TesseraError

__all__ = ["IndexStatus", "index_status"]


class IndexStatus(msgspec.Struct, frozen=True, kw_only=True):
    #: "native" (the store's own index), or the in-process vector leg: "ivf" (an inverted
    #: file, past the ANN threshold) or "exact" (the scan; also what one not held here starts as)
    kind: str
    #: held in this process's memory now (None: the index holds nothing per organisation)
    resident: bool | None = None
    #: rows held and an estimate of their memory (None: not held here)
    resident_rows: int | None = None
    resident_bytes: int | None = None
    #: its vector index is being retrained in the background (the old one serving)
    retraining: bool | None = None
    #: the snapshot on disk (None: none written yet, or an index that keeps none)
    snapshot_bytes: int | None = None
    snapshot_rows: int | None = None
    snapshot_age_seconds: float | None = None
    #: changes the store holds that the snapshot does not: what a restart now would
    #: read back from the store (this process's index has them through its writes)
    catch_up_lag: int | None = None


def _held(index: RetrievalIndex, org_id: str) -> IndexStatus:
    """The kind and what this process holds in memory (no snapshot fields)."""
    kind = "native" if index.name == "surreal" else "exact"
    if not isinstance(index, ResidentIndex):
        return IndexStatus(kind=kind)
    residency = index.residency(org_id)
    if residency is None:
        return IndexStatus(kind=kind, resident=False)
    return IndexStatus(
        kind=str(residency.vector_leg),
        resident=True,
        resident_rows=residency.rows,
        resident_bytes=residency.resident_bytes,
        retraining=residency.retraining,
    )


async def index_status(store: MemoryStore, index: RetrievalIndex, org_id: str) -> IndexStatus:
    held = _held(index, org_id)
    if not isinstance(index, SnapshottingIndex) or not index.snapshots_enabled:
        return held
    try:
        head = await store.change_position(org_id)
    except TesseraError:
        return held
    info = index.snapshot_info(org_id)
    same = info is not None and info.position.epoch == head.epoch
    return msgspec.structs.replace(
        held,
        snapshot_bytes=None if info is None else info.bytes,
        snapshot_rows=None if info is None else info.rows,
        snapshot_age_seconds=None
        if info is None
        else max((datetime.now(UTC) - info.written_at).total_seconds(), 0.0),
        catch_up_lag=max(head.sequence - info.position.sequence, 0) if same and info else None,
    )
