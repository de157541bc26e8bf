"""Archive files as they come: plain, or compressed with xz, gzip, bzip2 or zstd, streamed.

Why: mailboxes and exports travel compressed (``archive.mbox.xz``), and a
reader that took the compressed bytes for text found no message and said
nothing. The compression is told by the file's first bytes (its magic
number); a name that promises one (``.gz``) over bytes of another is refused
rather than guessed. Decompression streams (nothing holds a whole file), and
what lies inside is looked at too: a tar, zip, 7z or rar container is not a
mailbox, so a file reader refuses it with ``unsupported_archive`` instead of
reading nothing. zstd comes from the ``zstandard`` package (the standard
library has no zstd before Python 3.14); the rest from the standard library.
"""

import bz2
import gzip
import io
import lzma
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Protocol

import msgspec
import zstandard

from domain.errors import InvalidInputError, NotFoundError
from domain.reasons import ReasonCode

__all__ = [
    "ArchiveKind",
    "archive_kind",
    "open_decompressed",
    "open_file",
    "refuse_archive",
    "require_folder",
    "require_readable_file",
]

_MAGIC = (
    ("xz", b"\xfd7zXZ\x00"),
    ("gzip", b"\x1f\x8b"),
    ("bzip2", b"BZh"),
    ("zstd", b"\x28\xb5\x2f\xfd"),
)
_SUFFIXES = {
    ".xz": "xz",
    ".txz": "xz",
    ".gz": "gzip",
    ".tgz": "gzip",
    ".bz2": "bzip2",
    ".tbz2": "bzip2",
    ".zst": "zstd",
    ".tzst": "zstd",
}
_CONTAINERS = (
    ("zip", b"PK\x03\x04"),
    ("zip", b"PK\x05\x06"),
    ("7z", b"7z\xbc\xaf\x27\x1c"),
    ("rar", b"Rar!\x1a\x07"),
)
#: a tar header holds "ustar" at this offset
_TAR_MAGIC_AT = 257
#: enough of the start to tell a container (a tar header is 512 bytes)
_HEAD = 512
_BUFFER = 1 << 16
#: what a damaged or cut-short compressed stream raises while it is read
_DAMAGED = (OSError, EOFError, lzma.LZMAError, zstandard.ZstdError)


class ArchiveKind(msgspec.Struct, frozen=True, kw_only=True):
    """What a file is: its compression (None: plain) and the container inside (None: none)."""

    compression: str | None
    container: str | None


def refuse_archive(detail: str) -> InvalidInputError:
    return InvalidInputError(ReasonCode.UNSUPPORTED_ARCHIVE, detail)


def _compression(path: Path, head: bytes) -> str | None:
    found = next((name for name, magic in _MAGIC if head.startswith(magic)), None)
    named = _SUFFIXES.get(path.suffix.lower())
    if named is not None and found != named:
        raise refuse_archive(
            f"the file is named {path.suffix} but does not hold {named} data"
            + (f" (it holds {found})" if found else "")
        )
    return found


def _container(head: bytes) -> str | None:
    if head[_TAR_MAGIC_AT : _TAR_MAGIC_AT + 5] == b"ustar":
        return "tar"
    return next((name for name, magic in _CONTAINERS if head.startswith(magic)), None)


class _Stream(Protocol):
    def read(self, size: int = -1, /) -> bytes: ...

    def close(self) -> None: ...


def _decompressor(compression: str, raw: BinaryIO) -> _Stream:
    if compression == "xz":
        return lzma.LZMAFile(raw)
    if compression == "gzip":
        return gzip.GzipFile(fileobj=raw)
    if compression == "bzip2":
        return bz2.BZ2File(raw)
    return zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)


class _Guarded(io.RawIOBase):
    """A decompressing stream whose damage surfaces as ``unsupported_archive``."""

    def __init__(self, inner: _Stream, compression: str) -> None:
        self._inner = inner
        self._compression = compression

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        try:
            data = self._inner.read(len(buffer))
        except _DAMAGED:
            raise refuse_archive(f"the {self._compression} data is damaged or cut short") from None
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self._inner.close()
        super().close()


@contextmanager
def open_decompressed(path: Path) -> Iterator[BinaryIO]:
    """``path`` opened for reading what it holds (decompressed as its bytes say), buffered."""
    with path.open("rb") as raw:
        compression = _compression(path, raw.read(_HEAD))
        raw.seek(0)
        if compression is None:
            yield raw
            return
        stream = io.BufferedReader(_Guarded(_decompressor(compression, raw), compression), _BUFFER)
        try:
            yield stream
        finally:
            stream.close()


def archive_kind(path: Path) -> ArchiveKind:
    """What the file at ``path`` is, read from its first bytes (and its name's suffix)."""
    with path.open("rb") as raw:
        compression = _compression(path, raw.read(_HEAD))
    with open_decompressed(path) as stream:
        head = stream.read(_HEAD)
    return ArchiveKind(compression=compression, container=_container(head))


def require_readable_file(path: Path, what: str) -> None:
    """A file whose content (decompressed) a reader of ``what`` can take, else refused."""
    if not path.is_file():
        raise NotFoundError(ReasonCode.NOT_FOUND, f"no {what} file at the given path")
    kind = archive_kind(path)
    if kind.container is not None:
        raise refuse_archive(
            f"the file is a {kind.container} archive, not {what}: upload it (zip and tar "
            "uploads are unpacked) or unpack it into the import area"
        )


def require_folder(path: Path, what: str) -> None:
    """A folder for a reader of ``what``; an archive file in its place is named as one."""
    if path.is_dir():
        return
    if path.is_file():
        kind = archive_kind(path)
        if kind.container or kind.compression:
            raise refuse_archive(
                f"a {what} import reads a folder, and this is a "
                f"{kind.container or kind.compression} archive: upload it (zip and tar uploads "
                "are unpacked) or unpack it into the import area"
            )
    raise NotFoundError(ReasonCode.NOT_FOUND, f"no {what} folder at the given path")


@contextmanager
def open_file(path: Path, what: str) -> Iterator[BinaryIO]:
    """A ``what`` file opened for streaming, decompressed; refused when it is a container."""
    require_readable_file(path, what)
    with open_decompressed(path) as stream:
        yield stream
