"""Dropping organisations nobody used lately from memory; their snapshot brings them back.

Why: an in-process index holds every organisation this process has served
(hundreds of MB per 100k chunks, ``adapters/inprocess/footprint.py``), so a
process serving many organisations grows with all of them, not with the ones
in use. An organisation unused for ``idle_after`` seconds has its snapshot
brought up to date (``SnapshotKeeper.save``: caught up from the store, written
in a worker thread) and is then evicted; its next request restores it from
that snapshot (readiness), which costs seconds where a rebuild costs minutes.

When: each use (``used``, from readiness) may start one background sweep,
at most every ``idle_after / 4`` seconds (and at least every minute), never on
the request path. A process that receives no request at all sweeps nothing
until the next one. The use is checked again after the snapshot is written:
an organisation used meanwhile stays.
"""

import asyncio
import logging
from collections.abc import Callable

from application.indexing.residency import EvictableIndex
from application.indexing.snapshot_keeper import SnapshotKeeper

__all__ = ["IdleEviction"]

_log = logging.getLogger("tessera.readiness")

_MAX_SWEEP_INTERVAL = 60.0


class IdleEviction:
    def __init__(
        self,
        index: EvictableIndex,
        keeper: SnapshotKeeper,
        idle_after: float,
        clock: Callable[[], float],
    ) -> None:
        if idle_after <= 0:
            raise ValueError("idle_after must be > 0 seconds")
        self._index = index
        self._keeper = keeper
        self._idle_after = idle_after
        self._clock = clock
        self._last: dict[str, float] = {}
        self._next_sweep = float("-inf")
        self._task: asyncio.Task[None] | None = None
        #: organisations evicted by this process, and how often (status, tests)
        self.evictions: dict[str, int] = {}

    def used(self, org_id: str) -> None:
        """The organisation is in use now; start a sweep of the others when one is due."""
        now = self._clock()
        self._last[org_id] = now
        if now < self._next_sweep or (self._task is not None and not self._task.done()):
            return
        self._next_sweep = now + min(self._idle_after / 4, _MAX_SWEEP_INTERVAL)
        if self.idle():
            self._task = asyncio.get_running_loop().create_task(self._sweep_logged())

    def idle(self) -> list[str]:
        """Resident organisations unused for ``idle_after`` seconds (one never seen is
        counted from now)."""
        now = self._clock()
        out = []
        for org_id in self._index.resident_orgs():
            last = self._last.setdefault(org_id, now)
            if now - last >= self._idle_after:
                out.append(org_id)
        return out

    async def _sweep_logged(self) -> None:
        try:
            await self.sweep()
        except Exception:  # an organisation left in memory costs memory, nothing else
            _log.exception("evicting idle organisations failed")

    async def sweep(self) -> list[str]:
        """Snapshot and evict every idle organisation; the ones evicted."""
        evicted = []
        for org_id in self.idle():
            if self._keeper.unsaved(org_id):
                await self._keeper.save(org_id)  # not ready (being built): it stays unsaved
            if self._clock() - self._last.get(org_id, self._clock()) < self._idle_after:
                continue  # used while its snapshot was written
            if self._keeper.unsaved(org_id):
                continue  # written to meanwhile, or the save failed: the next sweep
            await self._index.evict(org_id)
            self._keeper.forget(org_id)
            self._last.pop(org_id, None)
            self.evictions[org_id] = self.evictions.get(org_id, 0) + 1
            evicted.append(org_id)
            _log.info("evicted the idle index of %s from memory (its snapshot is on disk)", org_id)
        return evicted

    async def close(self) -> None:
        """Wait for a running sweep (its snapshot writes) to end."""
        if self._task is not None and not self._task.done():
            await asyncio.gather(self._task, return_exceptions=True)
