"""The SurrealDB store's footing: one connection, each organisation's namespace, its schema.

Each organisation gets its own namespace (``org_<hex>``, see ``namespace_for``)
holding one database, ``memory``. Reads of an organisation that was never
prepared answer empty without touching it, because a ``USE NS`` would create
the namespace as a side effect; writes to one are refused, because vectors
must never land before the embedding space is recorded. The reads
(``memory_reads``) and the writes (``memory_store``) of the MemoryStore port
build on this class.
"""

import asyncio
from collections.abc import Sequence
from typing import Any

from adapters.surreal import codec
from adapters.surreal.compaction import directory_bytes
from adapters.surreal.connection import SurrealConnection
from adapters.surreal.schema import load_space, migrate
from adapters.surreal.search_indexes import keep_search_indexes
from application.ports.records import EmbeddingSpace, StoreInfo
from domain.errors import ConflictError, UpstreamError
from domain.reasons import ReasonCode

__all__ = ["AS_RECORDS", "CHECKPOINT_EVERY_CHUNKS", "SurrealStoreBase"]

#: rows written between engine checkpoints (see SurrealConnection.checkpoint): the
#: embedded engine stalled at ~74k chunks without one; 25k-chunk checkpoints kept a
#: 100k fill going, and a checkpoint's pause grows with the rows written before it
CHECKPOINT_EVERY_CHUNKS = 20_000


#: ``$ids`` made in the engine from ``$keys`` (text) and ``$table``, ahead of a query over them
AS_RECORDS = "LET $ids = $keys.map(|$k| type::record($table, $k));\n"


class SurrealStoreBase:
    """The connection and the organisations' namespaces; one connection, safe to share."""

    def __init__(
        self,
        url: str,
        *,
        username: str | None = None,
        password: str | None = None,
        checkpoint_every: int = CHECKPOINT_EVERY_CHUNKS,
        native_search: bool = True,
    ) -> None:
        """``native_search``: keep SurrealDB's full-text and vector indexes on chunks (the
        native retrieval index reads them); without it they are removed (search_indexes)."""
        if checkpoint_every < 1:
            raise ValueError("checkpoint_every must be >= 1")
        self._conn = SurrealConnection(url, username=username, password=password)
        self._checkpoint_every = checkpoint_every
        self._written_since_checkpoint = 0
        #: chunks a rebuild's scan has read since the engine was last reopened
        self._scanned_since_release = 0
        self.native_search = native_search
        #: organisations known to exist in this store, with their embedding space
        self._spaces: dict[str, EmbeddingSpace] = {}
        self._preparing = asyncio.Lock()

    @property
    def connection(self) -> SurrealConnection:
        return self._conn

    async def open(self) -> None:
        """Connect now rather than on the first call (fails fast on a locked directory)."""
        await self._conn.open()

    def info(self) -> StoreInfo:
        conn = self._conn
        on_disk = conn.on_disk
        return StoreInfo(
            engine="surrealdb",
            url_kind=conn.url_kind,
            data_bytes=directory_bytes(conn.data_dir) if on_disk else None,
            checkpoints=conn.checkpoints,
            written_since_checkpoint=self._written_since_checkpoint if on_disk else None,
            checkpoint_every=self._checkpoint_every if on_disk else None,
        )

    async def prepare(self, org_id: str, space: EmbeddingSpace) -> None:
        namespace = codec.namespace_for(org_id)
        async with self._preparing:
            try:
                await migrate(self._conn, namespace, org_id, space)
                await keep_search_indexes(
                    self._conn, namespace, space.dimension, native=self.native_search
                )
            except ConflictError:
                self._spaces.pop(org_id, None)
                raise
            self._spaces[org_id] = space

    async def space_of(self, org_id: str) -> EmbeddingSpace | None:
        """The organisation's space if it exists in the store (prepared here or elsewhere)."""
        known = self._spaces.get(org_id)
        if known is not None:
            return known
        namespace = codec.namespace_for(org_id)
        (root,) = await self._conn.query(None, "INFO FOR ROOT;", operation="listing namespaces")
        if namespace not in (root or {}).get("namespaces", {}):
            return None
        space = await load_space(self._conn, namespace)
        if space is not None:
            self._spaces[org_id] = space
        return space

    async def _writable(self, org_id: str) -> tuple[str, EmbeddingSpace]:
        space = await self.space_of(org_id)
        if space is None:
            raise UpstreamError(
                ReasonCode.STORE_FAILED,
                f"organisation {org_id} has not been prepared; call prepare() first",
            )
        return codec.namespace_for(org_id), space

    async def _readable(self, org_id: str) -> str | None:
        return None if await self.space_of(org_id) is None else codec.namespace_for(org_id)

    async def _select_ids(
        self, org_id: str, sql: str, table: str, ids: Sequence[str], *, operation: str
    ) -> list[dict[str, Any]]:
        """Rows of ``table`` with these ids (each once); none for an unknown organisation."""
        # an empty key names no row, and the engine fails the whole query making a record of it
        wanted = [key for key in dict.fromkeys(ids) if key]
        if not wanted:
            return []
        namespace = await self._readable(org_id)
        if namespace is None:
            return []
        # the keys go as text and become records in the engine: the SDK's pure-Python
        # CBOR encoding of a RecordID cost ~15 µs each, ~4.7 ms for 300 (a search's
        # lifecycle gate), and text ~0.3 µs (benchmarks/RESULTS.md)
        results = await self._conn.query(
            namespace,
            AS_RECORDS + sql,
            {"keys": wanted, "table": table},
            operation=operation,
        )
        return list(results[-1] or [])

    async def close(self) -> None:
        await self._conn.close()
