"""Restoring a derived index from its snapshot, catching it up, and saving it again.

Why here and not in the index: the rules are the store's. The store is the
truth and its change sequence (application.ports.changes) says what a snapshot
missed; a snapshot is used only when its epoch is the store's and it is not
ahead of the store (a store restored from an older backup), and every
source changed after it is read back from the store and applied again, so a
crash between a write and a snapshot loses nothing. Anything else rebuilds,
with a log line saying why.

When snapshots are written: after a full rebuild (so the next start is
fast), when ``save_every`` rows were written through since the last one (at
most every ``min_interval`` seconds), and on a clean shutdown. A save runs as
a background task: the files are written in a worker thread, never on the
request path. A redaction or delete starts one at the next use of the
organisation, so the removed text leaves the disk with the old snapshot.
"""

import asyncio
import logging
import time
from collections.abc import Callable

from application.indexing.snapshots import SnapshotOutcome, SnapshottingIndex
from application.ports import Embedder, MemoryStore
from application.ports.changes import ChangePosition

__all__ = ["SnapshotKeeper"]

_log = logging.getLogger("tessera.readiness")

#: changed sources read back per catch-up page
CATCH_UP_PAGE = 500
SAVE_EVERY_ROWS = 20_000
MIN_INTERVAL_SECONDS = 60.0


class SnapshotKeeper:
    def __init__(
        self,
        store: MemoryStore,
        index: SnapshottingIndex,
        embedder: Embedder,
        *,
        save_every: int = SAVE_EVERY_ROWS,
        min_interval: float = MIN_INTERVAL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._store = store
        self._index = index
        self._embedder = embedder
        self._save_every = save_every
        self._min_interval = min_interval
        self._clock = clock
        self._saving: dict[str, asyncio.Task[None]] = {}
        #: organisations whose running save began before a change that wants one
        self._again: set[str] = set()
        self._locks: dict[str, asyncio.Lock] = {}
        self._last_save: dict[str, float] = {}
        #: changed sources the last catch-up applied, per organisation (status, tests)
        self.caught_up: dict[str, int] = {}
        #: what opening each organisation's snapshot gave in this process (status, tests)
        self.outcomes: dict[str, SnapshotOutcome] = {}

    async def restore(self, org_id: str) -> bool:
        """Load and catch up the organisation's snapshot; False (logged why) to rebuild."""
        began = time.perf_counter()
        load = await self._index.restore(org_id, self._embedder.space)
        outcome, detail = load.outcome, load.detail
        if load.info is not None:
            head = await self._store.change_position(org_id)
            held = load.info.position
            if held.epoch != head.epoch or held.sequence > head.sequence:
                await self._index.drop(org_id)
                outcome = SnapshotOutcome.OTHER_STORE
                detail = f"snapshot at change {held.sequence}, the store at {head.sequence}"
                if held.epoch != head.epoch:
                    detail = "the store's change log is another one (organisation recreated?)"
            else:
                self.outcomes[org_id] = outcome
                applied = await self.catch_up(org_id)
                await self._index.mark_ready(org_id)
                self._last_save[org_id] = self._clock()
                _log.info(
                    "restored the index of %s from its snapshot: %d rows at change %d, "
                    "caught up %d changed sources in %.2f s",
                    org_id,
                    load.info.rows,
                    held.sequence,
                    applied,
                    time.perf_counter() - began,
                )
                return True
        self.outcomes[org_id] = outcome
        level = logging.INFO if outcome is SnapshotOutcome.MISSING else logging.WARNING
        _log.log(
            level,
            "rebuilding the index of %s from the store: snapshot %s (%s)",
            org_id,
            outcome,
            detail,
        )
        return False

    async def catch_up(self, org_id: str) -> int:
        """Apply every source changed after the index's position; how many were applied."""
        held = self._index.position(org_id) or ChangePosition()
        after = held.sequence
        applied = 0
        while True:
            page = await self._store.changed_sources(org_id, after, CATCH_UP_PAGE)
            if not page.changes:
                epoch = page.position.epoch or held.epoch
                self._index.set_position(org_id, ChangePosition(epoch=epoch, sequence=after))
                self.caught_up[org_id] = applied
                return applied
            source_ids = [source_id for _, source_id in page.changes]
            entries = await self._store.index_entries_of(org_id, source_ids)
            await self._index.catch_up(org_id, source_ids, entries)
            applied += len(source_ids)
            after = page.last

    async def rebuilt(self, org_id: str, position: ChangePosition) -> None:
        """A full rebuild from the store finished; it reflects at least ``position``."""
        self._index.set_position(org_id, position)
        self._start_save(org_id)

    def tick(self, org_id: str) -> None:
        """On each use: start a background save when enough was written since the last,
        or at once when a redaction or delete left text in the snapshot on disk."""
        if self._index.unsaved_removals(org_id):
            self._start_save(org_id)
            return
        if self._index.unsaved_changes(org_id) < self._save_every:
            return
        if self._clock() - self._last_save.get(org_id, float("-inf")) < self._min_interval:
            return
        self._start_save(org_id)

    def _start_save(self, org_id: str) -> None:
        self._last_save[org_id] = self._clock()
        running = self._saving.get(org_id)
        if running is not None and not running.done():
            self._again.add(org_id)  # it may have frozen the rows already: one more after it
            return
        self._saving[org_id] = asyncio.get_running_loop().create_task(self._save_logged(org_id))

    async def _save_logged(self, org_id: str) -> None:
        while True:
            self._again.discard(org_id)
            try:
                await self.save(org_id)
            except Exception:  # a failed save costs the next start a rebuild, nothing else
                _log.exception("the index snapshot of %s could not be written", org_id)
                return
            if org_id not in self._again:
                return

    async def save(self, org_id: str) -> None:
        """Catch up from the store, then write the snapshot at the position reached."""
        lock = self._locks.setdefault(org_id, asyncio.Lock())
        async with lock:
            if not self._index.is_ready(org_id):
                return
            await self.catch_up(org_id)
            await self._index.save_snapshot(org_id, self._embedder.space)
            self._last_save[org_id] = self._clock()

    def unsaved(self, org_id: str) -> bool:
        """The organisation's index holds what its snapshot on disk does not (or is not
        ready to be saved)."""
        info = self._index.snapshot_info(org_id)
        return (
            info is None
            or not self._index.is_ready(org_id)
            or self._index.unsaved_changes(org_id) > 0
            or self._index.unsaved_removals(org_id) > 0
            or self._index.position(org_id) != info.position
        )

    def forget(self, org_id: str) -> None:
        task = self._saving.pop(org_id, None)
        if task is not None:
            task.cancel()
        self._again.discard(org_id)
        self._last_save.pop(org_id, None)

    async def settled(self) -> None:
        """Wait for the background saves running now (and the ones they chain) to end."""
        while running := [t for t in self._saving.values() if not t.done()]:
            await asyncio.gather(*running, return_exceptions=True)

    async def close(self, org_ids: list[str]) -> None:
        """Clean shutdown: finish running saves, then save what changed since.

        An organisation not loaded here whose source was redacted or deleted (a
        correction needs no index warm-up) has that text in its snapshot on disk:
        it is restored, caught up (the removal included) and saved, or, where its
        snapshot cannot be used, the snapshot is deleted.
        """
        await self.settled()
        for org_id in self._index.removal_orgs():
            if not self._index.is_ready(org_id) and not await self.restore(org_id):
                await self._index.drop(org_id)  # an unusable snapshot: its files go
        for org_id in sorted({*org_ids, *self._index.removal_orgs()}):
            if not self._index.is_ready(org_id):
                continue
            if self._index.unsaved_changes(org_id) or self._index.snapshot_info(org_id) is None:
                await self._save_logged(org_id)
