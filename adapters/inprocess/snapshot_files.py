"""Where an organisation's snapshot lives, how it replaces the last one, and how it is checked.

Why it is built this way: docs/decisions/internals.md#adaptersinprocesssnapshot_filespy.
"""

import hashlib
import logging
import os
import shutil
import uuid
import zlib
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import msgspec.structs

from adapters.inprocess.episode_files import EPISODE_FILES
from adapters.inprocess.snapshot_format import FILES, OPTIONAL_FILES
from application.indexing.snapshots import SnapshotInfo, SnapshotOutcome
from application.ports.changes import ChangePosition
from application.ports.records import EmbeddingSpace

__all__ = ["FORMAT_VERSION", "Manifest", "SnapshotFiles", "SnapshotRefused"]

#: bump when the files' layout or what the index derives from an entry changes
FORMAT_VERSION = 2
_READ_BLOCK = 1 << 22

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
        """The live folder and its manifest, checked; raises SnapshotRefused."""
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
        dropped = False
        for name, want in manifest.files.items():
            why = _mismatch(live / name, want)
            if why is None:
                continue
            if name not in EPISODE_FILES:
                raise SnapshotRefused(SnapshotOutcome.CORRUPT, f"{name}: {why}")
            _log.warning("snapshot file %s %s: the episode postings are derived again", name, why)
            dropped = True
        if dropped:
            kept = {k: v for k, v in manifest.files.items() if k not in EPISODE_FILES}
            manifest = msgspec.structs.replace(manifest, files=kept)
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
