"""The in-process index with snapshots on disk: restored, caught up, saved in the background.

Why it is built this way: docs/decisions/internals.md#adaptersinprocesspersistentpy.
"""

import asyncio
import logging
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from adapters.inprocess import episode_files
from adapters.inprocess.episode_postings import EpisodePostings
from adapters.inprocess.index import InProcessIndex, _OrgIndex
from adapters.inprocess.snapshot_files import FileChecks, Manifest, SnapshotFiles, SnapshotRefused
from adapters.inprocess.snapshot_format import freeze, read_index, write_files
from application.indexing.snapshots import SnapshotInfo, SnapshotLoad, SnapshotOutcome
from application.ports.changes import ChangePosition
from application.ports.records import EmbeddingSpace, IndexEntry, Vector
from domain.scopes import LifecycleState

__all__ = ["PersistentInProcessIndex", "apply_current"]

_log = logging.getLogger("tessera.index")


def apply_current(org: _OrgIndex, source_ids: Sequence[str], entries: Sequence[IndexEntry]) -> None:
    """Make the rows of ``source_ids`` what ``entries`` (their chunks in the store now) say."""
    by_source: dict[str, list[IndexEntry]] = {}
    for entry in entries:
        by_source.setdefault(entry.source_id, []).append(entry)
    for source_id in dict.fromkeys(source_ids):
        current = by_source.get(source_id, [])
        if not current:
            if org.rows_of(source_id):
                org.remove(source_id)  # redacted or deleted: its chunks are gone
            continue
        fresh: list[IndexEntry] = []
        vectors: dict[str, Vector] = {}
        for entry in current:
            row = org.row_of.get(entry.chunk_id)
            if row is None or row in org.removed:
                fresh.append(entry)
                continue
            org.recall_codes[row] = org.recall_code(entry.recall_key)
            if entry.vector is not None and not org.has_vector[row]:
                vectors[entry.chunk_id] = entry.vector
        held = {e.chunk_id for e in current}
        for row in org.rows_of(source_id):  # a row whose chunk the store no longer holds
            chunk_id = org.ids[row]
            if chunk_id not in held and org.row_of.get(chunk_id) == row:
                org.recall_codes[row] = 0
        # the recall codes set above are no write the caches follow: drop them (a catch-up)
        org.cache.invalidate()
        org.attach(vectors)
        org.add(fresh)


class PersistentInProcessIndex(InProcessIndex):
    def __init__(
        self, snapshot_dir: Path, *, idle_after: float | None = None, **options: Any
    ) -> None:
        """``idle_after``: seconds an organisation may go unused before readiness evicts
        it from memory (None: never); ``options``: as ``InProcessIndex`` takes them."""
        super().__init__(**options)
        self._idle_after = idle_after
        #: evicted since their last restore: writes for them are left to the store
        self._evicted: set[str] = set()
        self._files = SnapshotFiles(snapshot_dir)
        self._positions: dict[str, ChangePosition] = {}
        self._unsaved: dict[str, int] = {}
        self._infos: dict[str, SnapshotInfo] = {}
        #: sources removed since the last save: their text is still in the snapshot on disk
        self._removals: dict[str, int] = {}
        #: one writer of an organisation's snapshot folders at a time: a save's thread or
        #: an episode build's thread adding its files to the live snapshot
        self._disk = threading.Lock()

    @property
    def snapshots_enabled(self) -> bool:
        return True

    @property
    def snapshot_dir(self) -> Path:
        return self._files.root

    @property
    def evictable(self) -> bool:
        return True

    @property
    def idle_after(self) -> float | None:
        return self._idle_after

    def resident_orgs(self) -> list[str]:
        return sorted(self._orgs)

    async def evict(self, org_id: str) -> None:
        # no await before the pop: nothing else runs between the caller's last check and it
        if self._orgs.pop(org_id, None) is None:
            return
        self._evicted.add(org_id)
        self._positions.pop(org_id, None)
        self._unsaved.pop(org_id, None)

    def _touched(self, org_id: str, rows: int) -> None:
        self._unsaved[org_id] = self._unsaved.get(org_id, 0) + rows

    async def add(self, org_id: str, entries: Sequence[IndexEntry]) -> None:
        if org_id in self._evicted:
            return  # in the store already; the restore that brings it back catches it up
        await super().add(org_id, entries)
        self._touched(org_id, len(entries))

    async def attach_vectors(self, org_id: str, vectors: Mapping[str, Vector]) -> None:
        await super().attach_vectors(org_id, vectors)
        self._touched(org_id, len(vectors))

    async def update(
        self, org_id: str, source_id: str, lifecycle: LifecycleState, recall: str
    ) -> None:
        await super().update(org_id, source_id, lifecycle, recall)
        self._touched(org_id, 1)

    async def remove(self, org_id: str, source_id: str) -> None:
        # counted even where the organisation is not loaded here: its snapshot on disk
        # still holds the text, and the keeper rewrites it (at the next use or at close)
        await super().remove(org_id, source_id)
        self._touched(org_id, 1)
        self._removals[org_id] = self._removals.get(org_id, 0) + 1

    async def drop(self, org_id: str) -> None:
        await super().drop(org_id)
        self._evicted.discard(org_id)
        self._positions.pop(org_id, None)
        self._unsaved.pop(org_id, None)
        self._infos.pop(org_id, None)
        self._removals.pop(org_id, None)
        await asyncio.to_thread(self._files.remove, org_id)

    async def restore(self, org_id: str, space: EmbeddingSpace) -> SnapshotLoad:
        self._evicted.discard(org_id)  # restored, or rebuilt by the caller: writes count again

        def load() -> tuple[_OrgIndex, SnapshotInfo]:
            folder, manifest = self._files.opened(org_id, space)
            # the files are checked beside the read, each before it is parsed, all of
            # them before the index is used
            with FileChecks(folder, manifest) as checks:
                try:
                    org = read_index(folder, self._ann_policy, manifest.files, checks.ready)
                except Exception:
                    checks.finish()  # a file not as listed says why first
                    raise
                manifest = checks.finish()
            self._persist_episodes_into(org_id, org, folder, manifest)
            return org, manifest.info()

        try:
            org, info = await asyncio.to_thread(load)
        except SnapshotRefused as refused:
            return SnapshotLoad(outcome=refused.outcome, detail=refused.detail)
        except (OSError, ValueError, KeyError, TypeError) as exc:  # checked files, bad content
            return SnapshotLoad(
                outcome=SnapshotOutcome.CORRUPT, detail=f"unreadable ({type(exc).__name__})"
            )
        if org.vectors is not None and org.vectors.shape[1] != space.dimension:
            return SnapshotLoad(outcome=SnapshotOutcome.CORRUPT, detail="vector width differs")
        self._orgs[org_id] = org
        self._positions[org_id] = info.position
        # a vector index rebuilt on open (another kind, or retrained after growth) counts
        # as a change, so the next save (at the latest, the clean shutdown) keeps it
        self._unsaved[org_id] = 0 if org.graph is None or org.graph_restored else 1
        # a graph retrained after the open (``graph_retrain``) is kept by the next save too
        org.on_retrained = lambda: self._touched(org_id, 1)
        self._infos[org_id] = info
        return SnapshotLoad(outcome=SnapshotOutcome.LOADED, info=info)

    async def catch_up(self, org_id: str, source_ids: list[str], entries: list[IndexEntry]) -> None:
        org = self._org(org_id)
        removed = len(org.removed)
        apply_current(org, source_ids, entries)
        self._touched(org_id, len(source_ids))
        if len(org.removed) > removed:
            self._removals[org_id] = self._removals.get(org_id, 0) + 1

    def position(self, org_id: str) -> ChangePosition | None:
        return self._positions.get(org_id)

    def set_position(self, org_id: str, position: ChangePosition) -> None:
        self._positions[org_id] = position

    def unsaved_changes(self, org_id: str) -> int:
        return self._unsaved.get(org_id, 0)

    def unsaved_removals(self, org_id: str) -> int:
        return self._removals.get(org_id, 0)

    def removal_orgs(self) -> list[str]:
        return sorted(org for org, n in self._removals.items() if n)

    async def save_snapshot(self, org_id: str, space: EmbeddingSpace) -> SnapshotInfo | None:
        org = self._orgs.get(org_id)
        position = self._positions.get(org_id)
        if org is None or not org.ready or position is None or org.size == 0:
            return None
        unsaved = self._unsaved.get(org_id, 0)
        removals = self._removals.get(org_id, 0)
        frozen = freeze(org)

        def write() -> SnapshotInfo:
            with self._disk:
                staging = self._files.new_folder(org_id)
                checks = write_files(frozen, staging)
                manifest = self._files.publish(
                    org_id, staging, space, position, frozen.size, checks
                )
                folder = self._files.live(org_id)
            if folder is not None:  # (a no-op where the save holds the postings)
                self._persist_episodes_into(org_id, org, folder, manifest)
            return manifest.info()

        try:
            info = await asyncio.to_thread(write)
        finally:
            frozen.release()  # the graph grows again (rows written meanwhile join it now)
            org.extend_graph()
        # rows written through while the files were written stay counted for the next save
        self._unsaved[org_id] = max(self._unsaved.get(org_id, 0) - unsaved, 0)
        self._removals[org_id] = max(self._removals.get(org_id, 0) - removals, 0)
        self._infos[org_id] = info
        _log.info(
            "index snapshot of %s written: %d rows, %.1f MB, at change %d",
            org_id,
            info.rows,
            info.bytes / 1e6,
            info.position.sequence,
        )
        return info

    def _persist_episodes_into(
        self, org_id: str, org: _OrgIndex, folder: Path, manifest: Manifest
    ) -> None:
        """Let the next episode build of ``org`` add its postings to this snapshot."""
        if any(name in manifest.files for name in episode_files.EPISODE_FILES):
            org.episodes.persist = None  # it holds them: a later build waits for a save
            org.episodes.sink = None
            return
        org.episodes.persist_rows = manifest.rows

        def persist(built: EpisodePostings) -> EpisodePostings | None:
            # rows past the snapshot's are numbered by this process's writes; a restore
            # numbers them by its catch-up: only a build within the snapshot's rows fits
            if built.rows > manifest.rows or not episode_files.persistable(
                built, frozenset(org.removed)
            ):
                return None
            with self._disk:
                if self._files.live(org_id) != folder:
                    return None
                checks = episode_files.write(built, folder)
                listed = self._files.add_files(org_id, folder, manifest, checks)
                if listed is None:
                    return None
            org.episodes.persist = org.episodes.sink = None
            self._infos[org_id] = listed.info()  # status: the files' bytes counted
            _log.info(
                "episode postings of %s added to its snapshot: %d rows, %.1f MB",
                org_id,
                built.rows,
                sum(c["bytes"] for c in checks.values()) / 1e6,
            )
            return episode_files.mapped(built, folder)

        def sink(rows: int) -> episode_files.FileSink | None:
            # straight into the snapshot's (unlisted) files: the build holds no copy
            if rows > manifest.rows or self._files.live(org_id) != folder:
                return None
            return episode_files.FileSink(folder)

        org.episodes.persist = persist
        org.episodes.sink = sink

    def snapshot_info(self, org_id: str) -> SnapshotInfo | None:
        known = self._infos.get(org_id)
        if known is None:
            manifest = self._files.manifest(org_id)
            known = None if manifest is None else manifest.info()
        return known
