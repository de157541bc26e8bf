"""Making an organisation usable: schema migrated, embedder checked, index warm.

Done once per organisation per process, on first use, under a lock so two
concurrent first requests do not both rebuild the index. An index that keeps
snapshots (application.indexing.snapshots) is restored from its snapshot and
caught up from the store's changes instead (application.indexing.snapshot_keeper);
it is rebuilt from every chunk only when that snapshot cannot be used.
"""

import asyncio
import logging
import time
from collections.abc import Callable, Sequence

from application.indexing.idle_eviction import IdleEviction
from application.indexing.residency import EvictableIndex
from application.indexing.snapshot_keeper import SnapshotKeeper
from application.indexing.snapshots import SnapshottingIndex
from application.ports import Embedder, MemoryStore, RetrievalIndex
from application.ports.changes import ChangePosition
from application.ports.records import IndexEntry

__all__ = ["OrgReadiness"]

_log = logging.getLogger("tessera.readiness")

_REBUILD_BATCH = 2_000


class OrgReadiness:
    def __init__(
        self,
        store: MemoryStore,
        index: RetrievalIndex,
        embedder: Embedder,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._store = store
        self._index = index
        self._embedder = embedder
        self._prepared: set[str] = set()
        self._lock = asyncio.Lock()
        #: restores and saves the index's snapshots, where it keeps them
        self.snapshots: SnapshotKeeper | None = None
        if isinstance(index, SnapshottingIndex) and index.snapshots_enabled:
            self.snapshots = SnapshotKeeper(store, index, embedder)
        #: drops organisations unused for the index's ``idle_after`` (snapshot written first)
        self.eviction: IdleEviction | None = None
        if (
            self.snapshots is not None
            and isinstance(index, EvictableIndex)
            and index.evictable
            and index.idle_after is not None
        ):
            self.eviction = IdleEviction(index, self.snapshots, index.idle_after, clock)

    async def ensure(self, org_id: str) -> None:
        if self.eviction is not None:
            self.eviction.used(org_id)
        if org_id in self._prepared and self._index.is_ready(org_id):
            if self.snapshots is not None:
                self.snapshots.tick(org_id)
            return
        async with self._lock:
            if org_id not in self._prepared:
                await self._store.prepare(org_id, self._embedder.space)
                self._prepared.add(org_id)
            if not self._index.is_ready(org_id) and (
                self.snapshots is None or not await self.snapshots.restore(org_id)
            ):
                await self._rebuild(org_id)

    async def _rebuild(self, org_id: str) -> None:
        # read before the scan: changes made during it are caught up again later
        position = await self._store.change_position(org_id) if self.snapshots else None
        total = await self._store.count_chunks(org_id)
        done = 0
        read = self._read_page(org_id, None)
        try:
            while batch := await read:
                # the engine reads the next page (on its own threads) while this one is
                # indexed on the loop: the rebuild costs the larger of the two, not the sum
                read = self._read_page(org_id, batch[-1].source_id)
                await asyncio.sleep(0)  # the read reaches the engine before indexing holds the loop
                await self._index.add(org_id, batch)
                done += len(batch)
                if total >= 10 * _REBUILD_BATCH:
                    _log.info(
                        "rebuilding %s index for %s: %d/%d chunks",
                        self._index.name,
                        org_id,
                        done,
                        total,
                    )
        finally:
            if not read.done():  # indexing failed: the read ahead is not wanted
                read.cancel()
                await asyncio.gather(read, return_exceptions=True)
        await self._index.mark_ready(org_id)
        if self.snapshots is not None:
            await self.snapshots.rebuilt(org_id, position or ChangePosition())

    def _read_page(self, org_id: str, after: str | None) -> asyncio.Task[list[IndexEntry]]:
        """The next page of whole sources (pages after the last source read)."""
        return asyncio.create_task(self._store.scan_index_sources(org_id, after, _REBUILD_BATCH))

    async def switch(self, org_ids: Sequence[str], flip: Callable[[], None]) -> None:
        """The store now serves another embedding model for ``org_ids``: call ``flip`` (the
        process's embedder switches) and forget each organisation's index and snapshot, all
        under the lock, so no request finds an index of the old model ready once flipped.
        The next ``ensure`` prepares the organisation again and rebuilds its index."""
        if self.snapshots is not None:
            await self.snapshots.settled()  # no save of the old model lands after the drop
        async with self._lock:
            flip()
            for org_id in org_ids:
                self.forget(org_id)
                await self._index.drop(org_id)

    def forget(self, org_id: str) -> None:
        self._prepared.discard(org_id)
        if self.snapshots is not None:
            self.snapshots.forget(org_id)

    async def close(self) -> None:
        """Clean shutdown: the snapshots of the organisations used here are brought up to date."""
        if self.eviction is not None:
            await self.eviction.close()
        if self.snapshots is not None:
            await self.snapshots.close(sorted(self._prepared))
