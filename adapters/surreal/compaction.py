"""Give deleted bytes back: rewrite an embedded store so only live rows remain.

Why it is built this way: docs/decisions/internals.md#adapterssurrealcompactionpy.
"""

import contextlib
import os
import shutil
import time
from pathlib import Path
from typing import Any

import msgspec
from surrealdb import AsyncSurreal
from surrealdb.errors import SurrealError

from adapters.surreal.connection import SurrealConnection
from adapters.surreal.heap import libc, release_freed_memory
from adapters.surreal.permissions import make_owner_only
from adapters.surreal.rewrite import copy_live_data
from domain.errors import UpstreamError
from domain.reasons import ReasonCode

__all__ = ["CompactionReport", "compact", "directory_bytes", "release_freed_memory"]

_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


class CompactionReport(msgspec.Struct, frozen=True, kw_only=True):
    #: False where this process has nothing to rewrite (a SurrealDB server: ws://, wss://)
    rewritten: bool
    url_kind: str
    namespaces: int = 0
    tables: int = 0
    rows: int = 0
    #: size of the data directory before and after (0 for mem://)
    bytes_before: int = 0
    bytes_after: int = 0
    seconds: float = 0.0


def directory_bytes(path: str | Path) -> int:
    """Total size of the regular files under ``path`` (0 when it does not exist)."""
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            with contextlib.suppress(FileNotFoundError):
                total += (Path(root) / name).stat().st_size
    return total


def _exchange(a: Path, b: Path) -> None:
    """Swap two directories: atomically with renameat2, else by two renames."""
    renameat2 = getattr(libc(), "renameat2", None)
    if renameat2 is not None:
        done = renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE)
        if done == 0:
            return
    parked = a.with_name(a.name + ".parked")
    os.replace(a, parked)
    try:
        os.replace(b, a)
    except OSError:
        os.replace(parked, a)
        raise
    os.replace(parked, b)


async def _open(url: str) -> Any:
    db = AsyncSurreal(url)
    await db.connect()
    return db


async def _quiet_close(db: Any) -> None:
    with contextlib.suppress(SurrealError, RuntimeError, OSError):
        await db.close()


def _failure(exc: BaseException) -> UpstreamError:
    return UpstreamError(
        ReasonCode.STORE_FAILED,
        f"SurrealDB failed while compacting the store ({type(exc).__name__}); "
        "its live data is unchanged",
    )


class _Progress:
    """What a rewrite got to, so a failure knows which engine is still usable."""

    def __init__(self) -> None:
        self.copied: Any = None
        self.old_closed = False


async def _rewrite_directory(old: Any, scheme: str, data: Path, progress: _Progress) -> Any:
    fresh_dir = data.with_name(data.name + ".compacting")
    shutil.rmtree(fresh_dir, ignore_errors=True)
    os.mkdir(fresh_dir, mode=os.stat(data).st_mode & 0o777)
    fresh = None
    try:
        fresh = await _open(f"{scheme}://{fresh_dir}")
        progress.copied = await copy_live_data(old, fresh)
        await fresh.close()
    except BaseException:
        if fresh is not None:
            await _quiet_close(fresh)
        shutil.rmtree(fresh_dir, ignore_errors=True)
        raise
    progress.old_closed = True
    await old.close()
    _exchange(data, fresh_dir)
    shutil.rmtree(fresh_dir, ignore_errors=True)
    reopened = await _open(f"{scheme}://{data}")
    # the fresh engine made its directories (wal/: 0750) as it does on any open; the
    # store's promise (0700 directories, 0600 files) is kept here as on every open
    make_owner_only(data)
    return reopened


async def _rewrite_memory(old: Any, progress: _Progress) -> Any:
    fresh = await _open("mem://")
    try:
        progress.copied = await copy_live_data(old, fresh)
    except BaseException:
        await _quiet_close(fresh)
        raise
    progress.old_closed = True
    await _quiet_close(old)
    return fresh


async def compact(conn: SurrealConnection) -> CompactionReport:
    """Rewrite the embedded engine behind ``conn`` so it holds only live rows."""
    kind = conn.url_kind
    if not conn.embedded:
        return CompactionReport(rewritten=False, url_kind=kind)
    data = Path(conn.data_dir) if conn.on_disk else None
    before = directory_bytes(data) if data is not None else 0
    began = time.perf_counter()
    progress = _Progress()
    failed: list[BaseException] = []

    async def work(old: Any) -> Any:
        try:
            if data is None:
                return await _rewrite_memory(old, progress)
            return await _rewrite_directory(old, kind, data, progress)
        except (SurrealError, OSError, RuntimeError, ValueError) as exc:
            failed.append(exc)
            # before the old engine was closed it is still the store; after, reopen lazily
            return None if progress.old_closed else old

    await conn.exclusively(work)
    release_freed_memory()
    if failed:
        raise _failure(failed[0]) from failed[0]
    copied = progress.copied
    return CompactionReport(
        rewritten=True,
        url_kind=kind,
        namespaces=copied.namespaces,
        tables=copied.tables,
        rows=copied.rows,
        bytes_before=before,
        bytes_after=directory_bytes(data) if data is not None else 0,
        seconds=time.perf_counter() - began,
    )
