"""One SurrealDB connection shared by every organisation, with errors translated.

Why every query names its namespace: the SDK's ``use()`` changes state shared
by all callers of the connection, so two concurrent requests for two
organisations could read each other's data between a ``use()`` and their
query. A ``USE NS .. DB ..;`` statement at the head of the query string only
affects that query (SurrealDB does not carry it into the connection's session;
tests/integration check this under ``asyncio.gather``), so routing is decided
per call and cannot leak.

Why errors are translated here: callers see ``StoreUnavailableError`` (locked
data directory, server down) or ``UpstreamError(store_failed)`` with a detail
that names the operation and the error class only, because engine messages can
quote stored values. The original exception stays chained as ``__cause__``.
"""

import asyncio
import logging
import re
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from surrealdb import AsyncSurreal
from surrealdb.errors import SurrealError, TransportError, UnsupportedEngineError

from adapters.surreal.heap import anon_rss_bytes, release_freed_memory
from adapters.surreal.permissions import make_owner_only
from adapters.surreal.wire_codec import use_fast_wire_codec
from adapters.surreal.withheld_presence import WithheldPresence
from domain.errors import StoreUnavailableError, TesseraError, UpstreamError
from domain.reasons import ReasonCode

__all__ = ["DATABASE", "RELEASE_SCANNED_EVERY", "SurrealConnection", "url_kind"]

#: every organisation's namespace holds one database of this name
DATABASE = "memory"

_IDENTIFIER = re.compile(r"[a-z][a-z0-9_]{0,63}\Z")
_EMBEDDED = frozenset({"mem", "memory", "surrealkv", "surrealkv+versioned", "file", "rocksdb"})
_ON_DISK = frozenset({"surrealkv", "surrealkv+versioned", "file", "rocksdb"})
_log = logging.getLogger("tessera.store")
#: a read of every chunk (a rebuild's scan, filling float vectors) gives the engine's read
#: memory back this often (``release_read_memory``): ~10 KB a chunk read, so ~0.5 GB at
#: most, for one engine reopen (well under a second at 1M chunks) each time
RELEASE_SCANNED_EVERY = 50_000
#: the embedded engine keeps ~10 KB for every record read until it is reopened; at 1M
#: chunks a search leaves ~0.65 MB (benchmarks/RESULTS.md). Past this much
#: growth of the process the engine is reopened: a stall of well under a second
RELEASE_AFTER_GROWTH = 512 * 1024 * 1024
#: reads between two looks at the process's memory (one read of /proc/self/status)
_CHECK_EVERY = 64


def url_kind(url: str) -> str:
    """The scheme of a database URL (``mem``, ``surrealkv``, ``ws`` ...), never its secrets."""
    scheme, sep, _ = url.partition("://")
    if not sep:
        return "mem" if url == "memory" else "unknown"
    return scheme.lower()


def _data_dir(url: str) -> str:
    _, _, rest = url.partition("://")
    return rest or url


class SurrealConnection:
    """Opens lazily (or on ``open()``), serialising the first connect behind a lock."""

    def __init__(
        self,
        url: str,
        *,
        username: str | None = None,
        password: str | None = None,
        release_after_growth: int | None = RELEASE_AFTER_GROWTH,
        memory_probe: Callable[[], int | None] = anon_rss_bytes,
    ) -> None:
        """``release_after_growth``: reopen an on-disk embedded engine once the process's
        anonymous memory has grown by this many bytes since the last time (None: never);
        see ``release_read_memory``. ``memory_probe``: that memory now, in bytes."""
        self._url = url
        self._username = username
        self._password = password
        self._db: Any = None
        self._closed = False
        self._opening = asyncio.Lock()
        # The embedded engine deadlocked (every thread parked, no progress) after
        # ~70k rows written by 8 concurrent write transactions on surrealkv; a
        # single-node store gains nothing from concurrent writers, so writes
        # through one connection take turns. Reads stay concurrent.
        self._writing = asyncio.Lock()
        #: writes waiting for or holding ``_writing``; while any, new reads wait (see query)
        self._writers = 0
        self._no_writers = asyncio.Event()
        self._no_writers.set()
        #: writer preference on; a benchmark turns it off to measure the old way
        self.prefer_writes = True
        # checkpoint gate: queries run while `_running` is set; `_idle` is set when none is
        self._running = asyncio.Event()
        self._running.set()
        self._idle = asyncio.Event()
        self._idle.set()
        self._active = 0
        #: engine reopens so far (observability; see checkpoint)
        self.checkpoints = 0
        #: queries sent so far, each one round trip to the engine (a benchmark counts them)
        self.round_trips = 0
        #: namespaces known to hold no redacted source's words (``withheld_presence``)
        self.withheld = WithheldPresence(exact=url_kind(url) in _EMBEDDED)
        self._release_after = release_after_growth
        self._memory_probe = memory_probe
        #: the memory after the last release (or the first look); reads counted since a look
        self._memory_floor: int | None = None
        self._reads_unchecked = 0
        self._releasing: asyncio.Task[None] | None = None

    @property
    def url_kind(self) -> str:
        return url_kind(self._url)

    @property
    def embedded(self) -> bool:
        return self.url_kind in _EMBEDDED

    @property
    def on_disk(self) -> bool:
        """An embedded engine whose data lives in a directory (``data_dir``)."""
        return self.url_kind in _ON_DISK

    @property
    def data_dir(self) -> str:
        """The data directory of an on-disk embedded engine (the URL's path)."""
        return _data_dir(self._url)

    async def open(self) -> None:
        if self._db is not None:
            return
        if self._closed:
            raise StoreUnavailableError(ReasonCode.STORE_UNAVAILABLE, "the store has been closed")
        async with self._opening:
            if self._db is None:
                self._db = await self._connect()

    async def _connect(self) -> Any:
        kind = self.url_kind
        db: Any = None
        use_fast_wire_codec()
        try:
            if kind in _ON_DISK:
                make_owner_only(Path(_data_dir(self._url)))
            # The embedded engine opens (and locks) its data directory in this constructor.
            db = AsyncSurreal(self._url)
            await db.connect()
            if kind in _ON_DISK:  # the engine makes some directories (wal/) 0750 itself
                make_owner_only(Path(_data_dir(self._url)))
            if self._username is not None:
                await db.signin({"username": self._username, "password": self._password or ""})
        except UnsupportedEngineError as exc:
            raise StoreUnavailableError(
                ReasonCode.STORE_UNAVAILABLE,
                f"unsupported SurrealDB URL scheme '{kind}' (use mem://, surrealkv://<dir>, "
                "ws://host:port or wss://host:port)",
            ) from exc
        except (SurrealError, OSError, RuntimeError) as exc:
            if db is not None:
                await _quiet_close(db)
            raise self._open_failure(exc) from exc
        return db

    def _open_failure(self, exc: BaseException) -> StoreUnavailableError:
        kind = self.url_kind
        if "locked" in str(exc).lower() and self.embedded:
            return StoreUnavailableError(
                ReasonCode.STORE_LOCKED,
                f"the data directory {_data_dir(self._url)} is locked by another Tessera "
                "process (e.g. `tessera serve`); stop it, or point this command at the "
                "running server instead of opening the directory beside it",
            )
        return StoreUnavailableError(
            ReasonCode.STORE_UNAVAILABLE,
            f"could not open the SurrealDB store ({kind}): {type(exc).__name__}",
        )

    async def query(
        self,
        namespace: str | None,
        sql: str,
        variables: dict[str, Any] | None = None,
        *,
        operation: str,
        write: bool = False,
    ) -> list[Any]:
        """Run ``sql`` inside ``namespace`` (or at root level); one result per statement.

        ``write=True`` marks statements that change data: on the embedded engine
        they run one at a time.
        """
        if write and self.embedded:
            self._writers += 1
            self._no_writers.clear()
            try:
                async with self._writing:
                    return await self._query(namespace, sql, variables, operation=operation)
            finally:
                self._writers -= 1
                if self._writers == 0:
                    self._no_writers.set()
        if self.prefer_writes and self._writers:
            # Writes take turns behind one lock; under heavy reads each turn was slowed by
            # dozens of reads in the engine, and writes queued for seconds.
            await self._no_writers.wait()
        results = await self._query(namespace, sql, variables, operation=operation)
        self._read_done()
        return results

    def _read_done(self) -> None:
        """Every ``_CHECK_EVERY`` reads, look at the process's memory; past the allowed
        growth, reopen the engine in the background (``release_read_memory``)."""
        if self._release_after is None or self.url_kind not in _ON_DISK:
            return
        self._reads_unchecked += 1
        if self._reads_unchecked < _CHECK_EVERY:
            return
        self._reads_unchecked = 0
        now = self._memory_probe()
        if now is None:
            return
        if self._memory_floor is None or now < self._memory_floor:
            self._memory_floor = now
            return
        if now - self._memory_floor >= self._release_after and self._releasing is None:
            self._releasing = asyncio.get_running_loop().create_task(self._release_grown())

    async def _release_grown(self) -> None:
        try:
            await self.release_read_memory()
        except Exception:  # the next query reopens the URL; a failed release costs memory only
            _log.exception("the store's read memory could not be released")
        finally:
            # what stays is the index's, Python's or the model's: the next release waits
            # for as much growth again, so one that frees nothing is not repeated at once
            self._memory_floor = self._memory_probe()
            self._releasing = None

    async def checkpoint(self) -> None:
        """Reopen an on-disk embedded engine so that it flushes its write-ahead log.

        Why: in this embedded build the WAL is only flushed to tables when the
        engine opens; a long write session grew it to ~1.7 GB (about 74k chunks)
        and the engine then stopped for good. Reopening replays and flushes it,
        keeping every acknowledged write. New queries wait while it happens.
        """
        await self._reopen("store checkpoint")

    async def release_read_memory(self) -> None:
        """Reopen an on-disk embedded engine so that it gives back what reads left behind,
        then trim the C heap.

        Why: this embedded build keeps ~10 KB of anonymous memory for every record a
        query has read, for as long as the engine stays open (re-reading a record adds
        nothing; a reopen frees it all). A rebuild reads every chunk, so at 1M chunks it
        left the process ~10 GB larger (benchmarks/RESULTS.md).
        """
        await self._reopen("read memory released")
        # the C allocator keeps what the engine freed until trimmed (~60 ms at 1M rows)
        await asyncio.to_thread(release_freed_memory)

    async def _reopen(self, why: str) -> None:
        if self._db is None or self.url_kind not in _ON_DISK or not self._running.is_set():
            return
        self._running.clear()
        began = time.perf_counter()
        try:
            await self._idle.wait()
            db, self._db = self._db, None
            await db.close()
            self._db = await self._connect()
            self.checkpoints += 1
        finally:
            self._running.set()
        _log.info("%s: engine reopened in %.1f s", why, time.perf_counter() - began)

    async def exclusively(self, work: Callable[[Any], Awaitable[Any]]) -> None:
        """Run ``work(engine)`` while no other query runs; it returns the engine to use next.

        Why: a store rewrite (adapters/surreal/compaction.py) reads the open
        engine, closes it and replaces it; queries arriving meanwhile wait, as
        they do for a checkpoint. ``work`` returns the same engine, a new open
        one, or None (the next query then reopens the URL).
        """
        await self.open()
        while not self._running.is_set():
            await self._running.wait()
        self._running.clear()
        try:
            await self._idle.wait()
            self._db = await work(self._db)
        finally:
            self._running.set()

    async def _enter(self) -> None:
        while True:
            await self._running.wait()
            if self._running.is_set():  # not cleared again while this task waited to resume
                self._active += 1
                self._idle.clear()
                return

    def _leave(self) -> None:
        self._active -= 1
        if self._active == 0:
            self._idle.set()

    async def _query(
        self,
        namespace: str | None,
        sql: str,
        variables: dict[str, Any] | None,
        *,
        operation: str,
    ) -> list[Any]:
        await self._enter()
        self.round_trips += 1
        try:
            return await self._run(namespace, sql, variables, operation=operation)
        finally:
            self._leave()

    async def _run(
        self,
        namespace: str | None,
        sql: str,
        variables: dict[str, Any] | None,
        *,
        operation: str,
    ) -> list[Any]:
        await self.open()
        prefix = ""
        if namespace is not None:
            if not _IDENTIFIER.match(namespace):
                raise ValueError("namespace must be a plain lowercase identifier")
            prefix = f"USE NS {namespace} DB {DATABASE};\n"
        try:
            results = await self._db.query(prefix + sql, variables or {})
        except TesseraError:
            raise
        except TransportError as exc:
            raise StoreUnavailableError(
                ReasonCode.STORE_UNAVAILABLE,
                f"SurrealDB became unreachable while {operation} ({type(exc).__name__})",
            ) from exc
        except (SurrealError, OSError, RuntimeError) as exc:
            raise UpstreamError(
                ReasonCode.STORE_FAILED,
                f"SurrealDB failed while {operation} ({type(exc).__name__})",
            ) from exc
        if not isinstance(results, list):
            raise UpstreamError(
                ReasonCode.STORE_FAILED, f"SurrealDB gave an unexpected answer while {operation}"
            )
        return results[1:] if prefix else results

    async def close(self) -> None:
        self._closed = True
        if self._releasing is not None:  # it reopens the engine: let it end first
            await asyncio.gather(self._releasing, return_exceptions=True)
        db, self._db = self._db, None
        if db is not None:
            await db.close()


async def _quiet_close(db: Any) -> None:
    """Release a half-opened engine; the open failure is what the caller needs to see."""
    try:
        await db.close()
    except (SurrealError, RuntimeError, OSError):
        return
