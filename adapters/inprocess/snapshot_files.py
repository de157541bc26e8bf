"""Where an organisation's snapshot lives, how it replaces the last one, and how it is checked.

Why it is built this way: docs/decisions/internals.md#adaptersinprocesssnapshot_filespy.
"""

import hashlib
import logging
import os
import shutil
import uuid
import zlib
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType

import msgspec
import msgspec.structs

from adapters.inprocess.episode_files import EPISODE_FILES
from adapters.inprocess.graph_file import GRAPH_FILE
from adapters.inprocess.snapshot_format import FILES, OPTIONAL_FILES, STATE_FILE
from application.indexing.snapshots import SnapshotInfo, SnapshotOutcome
from application.ports.changes import ChangePosition
from application.ports.records import EmbeddingSpace

__all__ = ["FORMAT_VERSION", "FileChecks", "Manifest", "SnapshotFiles", "SnapshotRefused"]

#: bump when the files' layout or what the index derives from an entry changes
FORMAT_VERSION = 2
_READ_BLOCK = 1 << 22
#: threads checking a snapshot's files beside the read (``zlib.crc32`` and the reads
#: release the GIL): two, the cores of the smallest machine the service runs on
_CHECKERS = 2
#: the files an open parses, checked first (the mapped ones are read by searches later)
_PARSED_FIRST = (STATE_FILE, GRAPH_FILE, *EPISODE_FILES)

_log = logging.getLogger("tessera.index")


class FileCheck(msgspec.Struct, frozen=True, kw_only=True):
    bytes: int
    crc32: int


class Manifest(msgspec.Struct, frozen=True, kw_only=True):
    format: int
    model: str
    dimension: int
    epoch: str
    sequence: int
    rows: int
    written_at: datetime
    files: dict[str, FileCheck]

    def info(self) -> SnapshotInfo:
        return SnapshotInfo(
            position=ChangePosition(epoch=self.epoch, sequence=self.sequence),
            written_at=self.written_at,
            bytes=sum(f.bytes for f in self.files.values()),
            rows=self.rows,
        )


class SnapshotRefused(Exception):
    """The snapshot cannot be used; ``outcome`` says why (``detail``: for the log)."""

    def __init__(self, outcome: SnapshotOutcome, detail: str) -> None:
        super().__init__(detail)
        self.outcome = outcome
        self.detail = detail


def _crc(path: Path) -> int:
    crc = 0
    with path.open("rb") as f:
        while block := f.read(_READ_BLOCK):
            crc = zlib.crc32(block, crc)
    return crc


def _mismatch(path: Path, want: FileCheck) -> str | None:
    """Why ``path`` is not the file the manifest lists (None: it is)."""
    try:
        if path.stat().st_size != want.bytes:
            return "size differs"
        if _crc(path) != want.crc32:
            return "checksum differs"
    except OSError:
        return "unreadable"
    return None


def _sync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class FileChecks:
    """Each listed file's size and CRC-32 against the manifest, in worker threads while
    the index reads the snapshot: ``ready`` waits for one file just before it is
    parsed, ``finish`` for every file before the index is used. Why beside the read,
    not before it: at 1M rows the files are ~4 GB (docs/decisions/internals.md)."""

    def __init__(self, folder: Path, manifest: Manifest) -> None:
        self.manifest = manifest
        self._pool = ThreadPoolExecutor(_CHECKERS, thread_name_prefix="tessera-snapshot-check")
        first = [n for n in _PARSED_FIRST if n in manifest.files]
        order = first + sorted(
            set(manifest.files) - set(first), key=lambda n: manifest.files[n].bytes
        )
        self._checks: dict[str, Future[str | None]] = {
            name: self._pool.submit(_mismatch, folder / name, manifest.files[name])
            for name in order
        }
        self._warned: set[str] = set()

    def __enter__(self) -> "FileChecks":
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)

    def ready(self, name: str) -> bool:
        """Whether ``name`` is the file listed (waiting for its check). A required file
        that is not raises SnapshotRefused; an episode postings file answers False (they
        are derived from the others, so the open goes on without them, logged)."""
        why = self._checks[name].result()
        if why is None:
            return True
        if name not in EPISODE_FILES:
            raise SnapshotRefused(SnapshotOutcome.CORRUPT, f"{name}: {why}")
        if name not in self._warned:
            self._warned.add(name)
            _log.warning("snapshot file %s %s: the episode postings are derived again", name, why)
        return False

    def finish(self) -> Manifest:
        """Every file checked (raises as ``ready``); the manifest without the episode
        postings when one of their files is not as listed."""
        if all([self.ready(name) for name in self._checks]):
            return self.manifest
        kept = {k: v for k, v in self.manifest.files.items() if k not in EPISODE_FILES}
        return msgspec.structs.replace(self.manifest, files=kept)


class SnapshotFiles:
    def __init__(self, root: Path) -> None:
        self.root = root

    def folder(self, org_id: str) -> Path:
        return self.root / hashlib.sha256(org_id.encode()).hexdigest()[:32]

    def live(self, org_id: str) -> Path | None:
        """The live snapshot folder named by CURRENT, if any."""
        current = self.folder(org_id) / "CURRENT"
        try:
            name = current.read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            return None
        return self.folder(org_id) / name if name.startswith("snap-") else None

    def manifest(self, org_id: str) -> Manifest | None:
        live = self.live(org_id)
        if live is None:
            return None
        try:
            return msgspec.json.decode((live / "manifest.json").read_bytes(), type=Manifest)
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            return None

    def check(self, org_id: str, space: EmbeddingSpace) -> tuple[Path, Manifest]:
        """The live folder and its manifest, checked (files included); raises
        SnapshotRefused. An open checks the files beside its read instead (``opened``
        and ``FileChecks``)."""
        live, manifest = self.opened(org_id, space)
        with FileChecks(live, manifest) as checks:
            return live, checks.finish()

    def opened(self, org_id: str, space: EmbeddingSpace) -> tuple[Path, Manifest]:
        """The live folder and its manifest, checked but for its files' bytes (the
        caller checks those: ``FileChecks``); raises SnapshotRefused."""
        live = self.live(org_id)
        if live is None:
            raise SnapshotRefused(SnapshotOutcome.MISSING, "no snapshot")
        try:
            manifest = msgspec.json.decode((live / "manifest.json").read_bytes(), type=Manifest)
        except OSError as exc:
            raise SnapshotRefused(SnapshotOutcome.CORRUPT, "manifest unreadable") from exc
        except (msgspec.DecodeError, msgspec.ValidationError) as exc:
            raise SnapshotRefused(SnapshotOutcome.CORRUPT, "manifest undecodable") from exc
        if manifest.format != FORMAT_VERSION:
            raise SnapshotRefused(
                SnapshotOutcome.OTHER_SCHEMA,
                f"snapshot format {manifest.format}, this release reads {FORMAT_VERSION}",
            )
        held = (manifest.model, manifest.dimension)
        if held != (space.model, space.dimension):
            raise SnapshotRefused(
                SnapshotOutcome.OTHER_MODEL,
                f"snapshot of {held[0]} ({held[1]} dimensions), the embedder is "
                f"{space.model} ({space.dimension})",
            )
        listed = set(manifest.files)
        if not set(FILES) <= listed or not listed <= {*FILES, *OPTIONAL_FILES}:
            raise SnapshotRefused(SnapshotOutcome.CORRUPT, "manifest lists other files")
        return live, manifest

    def add_files(
        self, org_id: str, folder: Path, expected: Manifest, checks: dict[str, dict[str, int]]
    ) -> Manifest | None:
        """List ``checks`` (files already written into ``folder``) in its manifest, if
        ``folder`` is still the live snapshot and its manifest still ``expected``; the
        new manifest, or None (nothing changed)."""
        if self.live(org_id) != folder:
            return None
        path = folder / "manifest.json"
        try:
            held = msgspec.json.decode(path.read_bytes(), type=Manifest)
        except (OSError, msgspec.DecodeError, msgspec.ValidationError):
            return None
        if held != expected or set(checks) & set(held.files):
            return None
        for name in checks:
            (folder / name).chmod(0o600)
            with (folder / name).open("rb+") as f:
                os.fsync(f.fileno())
        files = {**held.files, **{n: FileCheck(**c) for n, c in checks.items()}}
        manifest = msgspec.structs.replace(held, files=files)
        staging = folder / f".manifest-{uuid.uuid4().hex}"
        staging.write_bytes(msgspec.json.encode(manifest))
        staging.chmod(0o600)
        with staging.open("rb+") as f:
            os.fsync(f.fileno())
        os.replace(staging, path)
        _sync_dir(folder)
        return manifest

    def new_folder(self, org_id: str) -> Path:
        """A private staging folder (0700, like the store's data directory: texts live here)."""
        for folder in (self.root, self.folder(org_id)):
            folder.mkdir(mode=0o700, exist_ok=True)
            folder.chmod(0o700)
        staging = self.folder(org_id) / f".tmp-{uuid.uuid4().hex}"
        staging.mkdir(mode=0o700)
        return staging

    def publish(
        self,
        org_id: str,
        staging: Path,
        space: EmbeddingSpace,
        position: ChangePosition,
        rows: int,
        checks: dict[str, dict[str, int]],
    ) -> Manifest:
        """Seal ``staging`` with its manifest and make it the live snapshot (atomically)."""
        manifest = Manifest(
            format=FORMAT_VERSION,
            model=space.model,
            dimension=space.dimension,
            epoch=position.epoch,
            sequence=position.sequence,
            rows=rows,
            written_at=datetime.now(UTC),
            files={name: FileCheck(**c) for name, c in checks.items()},
        )
        (staging / "manifest.json").write_bytes(msgspec.json.encode(manifest))
        for name in (*checks, "manifest.json"):
            (staging / name).chmod(0o600)
            with (staging / name).open("rb+") as f:
                os.fsync(f.fileno())
        home = self.folder(org_id)
        final = home / f"snap-{position.sequence}-{uuid.uuid4().hex[:8]}"
        staging.rename(final)
        pointer = home / f".CURRENT-{uuid.uuid4().hex}"
        pointer.write_text(final.name, encoding="ascii")
        pointer.chmod(0o600)
        with pointer.open("rb+") as f:
            os.fsync(f.fileno())
        os.replace(pointer, home / "CURRENT")
        _sync_dir(home)
        for old in home.iterdir():  # earlier snapshots and abandoned temporaries
            if old.name not in (final.name, "CURRENT"):
                shutil.rmtree(old, ignore_errors=True) if old.is_dir() else old.unlink(True)
        return manifest

    def remove(self, org_id: str) -> None:
        shutil.rmtree(self.folder(org_id), ignore_errors=True)
