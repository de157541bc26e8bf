"""Saving an uploaded archive in its uploader's folder, unpacking zip and tar files safely.

Why unpack: a ChatGPT export arrives as a zip, a Maildir or a notes folder
can only travel as an archive. What a file is comes from its first bytes
(``archive_kind``): a zip is unzipped; a tar, plain or compressed with xz,
gzip, bzip2 or zstd, is unpacked as a stream; a single compressed file (an
``.mbox.xz``) is kept as it is, for the adapter reads it compressed; 7z and
rar, and a name that promises an archive its bytes are not, are refused
(``unsupported_archive``). Members that would land outside the upload's
folder, links, and archives that unpack past the size limit are refused.
"""

import asyncio
import shutil
import tarfile
import zipfile
from pathlib import Path
from typing import Protocol

from litestar.datastructures import UploadFile

from adapters.sources.compressed import archive_kind, open_decompressed, refuse_archive
from application.imports.import_jobs import ImportJobs
from domain.errors import InvalidInputError
from domain.policy import MemoryPolicyContext
from domain.reasons import ReasonCode

__all__ = ["keep_upload", "save_upload", "too_large"]

_CHUNK = 1 << 20
_TAR_SUFFIXES = (
    ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz", ".tar.zst", ".tzst"
)  # fmt: skip
#: how much larger than the upload limit an archive may unpack to
_UNPACK_FACTOR = 8


class _Readable(Protocol):
    def read(self, n: int = -1, /) -> bytes: ...


def too_large(limit: int) -> InvalidInputError:
    return InvalidInputError(
        ReasonCode.CONTENT_TOO_LARGE,
        f"an upload may be at most {limit} bytes (TESSERA_IMPORT_MAX_UPLOAD_MB)",
    )


def _safe_name(filename: str | None) -> str:
    name = Path(filename or "").name.strip()
    cleaned = "".join(c if c.isalnum() or c in "._-" else "_" for c in name).lstrip(".")
    return cleaned[:120] or "upload"


def _unpack_zip(archive: Path, dest: Path, budget: int) -> None:
    with zipfile.ZipFile(archive) as zipped:
        members = zipped.infolist()
        if sum(m.file_size for m in members) > budget:
            raise InvalidInputError(ReasonCode.CONTENT_TOO_LARGE, "the archive unpacks too large")
        for member in members:
            target = (dest / member.filename).resolve()
            if not target.is_relative_to(dest):
                raise InvalidInputError(
                    ReasonCode.INVALID_REQUEST, "the archive has a member outside its folder"
                )
            zipped.extract(member, dest)


def _unpack_tar(archive: Path, dest: Path, budget: int) -> None:
    """A tar, decompressed as its bytes say, unpacked member by member in one pass."""
    unpacked = 0
    with open_decompressed(archive) as stream, tarfile.open(fileobj=stream, mode="r|") as tarred:
        for member in tarred:
            unpacked += member.size
            if unpacked > budget:
                raise InvalidInputError(
                    ReasonCode.CONTENT_TOO_LARGE, "the archive unpacks too large"
                )
            # the "data" filter refuses links out, absolute paths, devices and odd modes
            tarred.extract(member, dest, filter="data")


def _container(saved: Path, lowered: str) -> str | None:
    """``zip``, ``tar`` or None (one file), from the bytes; refused when the name disagrees."""
    kind = archive_kind(saved)
    named = (
        "tar" if lowered.endswith(_TAR_SUFFIXES) else "zip" if lowered.endswith(".zip") else None
    )
    if kind.container == "zip" and kind.compression is not None:
        raise refuse_archive("a compressed zip archive is not read: upload the zip itself")
    if kind.container not in (None, "zip", "tar"):
        raise refuse_archive(
            f"{kind.container} archives are not read: upload a zip or tar archive instead"
        )
    if named is not None and kind.container != named:
        raise refuse_archive(f"the file is named as a {named} archive but is not one")
    return kind.container


#: what a zip tool adds beside the content (macOS's resource forks)
_NOT_CONTENT = frozenset({"__MACOSX"})


def _unpacked_root(folder: Path) -> Path:
    """The one folder or file an archive held (a zipped mailbox is read as the mailbox),
    else the folder it was unpacked into."""
    entries = [e for e in folder.iterdir() if e.name not in _NOT_CONTENT]
    return entries[0] if len(entries) == 1 else folder


def save_upload(source: _Readable, filename: str | None, folder: Path, limit: int) -> Path:
    """Copy the upload into ``folder`` (at most ``limit`` bytes); the path to import from."""
    name = _safe_name(filename)
    saved = folder / name
    written = 0
    with saved.open("wb") as out:
        while chunk := source.read(_CHUNK):
            written += len(chunk)
            if written > limit:
                out.close()
                shutil.rmtree(folder, ignore_errors=True)
                raise too_large(limit)
            out.write(chunk)
    try:
        container = _container(saved, name.lower())
    except InvalidInputError:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    if container is None:
        return saved  # one file, maybe compressed: its adapter reads it
    unpacked = folder / "unpacked"
    unpacked.mkdir(mode=0o700)
    try:
        if container == "tar":
            _unpack_tar(saved, unpacked.resolve(), limit * _UNPACK_FACTOR)
        else:
            _unpack_zip(saved, unpacked.resolve(), limit * _UNPACK_FACTOR)
    except (zipfile.BadZipFile, tarfile.TarError, OSError):
        shutil.rmtree(folder, ignore_errors=True)
        raise InvalidInputError(
            ReasonCode.INVALID_REQUEST, "the upload is not a readable zip or tar archive"
        ) from None
    except InvalidInputError:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    saved.unlink()
    return _unpacked_root(unpacked)


async def keep_upload(
    jobs: ImportJobs, ctx: MemoryPolicyContext, upload_id: str, upload: UploadFile
) -> Path:
    """Save an uploaded archive in its uploader's own folder; a failure leaves nothing."""
    folder = jobs.upload_dir(ctx, upload_id)
    try:
        return await asyncio.to_thread(
            save_upload, upload.file, upload.filename, folder, jobs.max_upload_bytes
        )
    except BaseException:
        jobs.discard_upload(folder)
        raise
    finally:
        await upload.close()
