"""The MemoryStore port on SurrealDB 3: embedded (mem://, surrealkv://) or a server (ws://).

Each organisation gets its own namespace (``org_<hex>``, see ``namespace_for``)
holding one database, ``memory``. Reads of an organisation that was never
prepared answer empty without touching it, because a ``USE NS`` would create
the namespace as a side effect; writes to one are refused, because vectors
must never land before the embedding space is recorded.

A memory is written in one transaction: the source first, then its chunks in
``INSERT`` batches of at most 50 rows (larger batches misbehave on the
embedded engine), so a failure leaves neither.
"""

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from surrealdb import RecordID

from adapters.surreal import codec, corrections
from adapters.surreal.compaction import CompactionReport, compact, directory_bytes
from adapters.surreal.connection import SurrealConnection
from adapters.surreal.schema import load_space, migrate
from application.memory_checks import check_memory
from application.records import (
    EmbeddedChunk,
    EmbeddingSpace,
    IndexEntry,
    SourceLifecycle,
    SourceState,
    StoreInfo,
    Vector,
)
from domain.errors import ConflictError, NotFoundError, UpstreamError
from domain.models import Chunk, Source, chunk_recall
from domain.reasons import ReasonCode
from domain.scopes import LifecycleState, ScopeRef

__all__ = ["CHECKPOINT_EVERY_CHUNKS", "INSERT_BATCH", "SurrealMemoryStore"]

#: rows written between engine checkpoints (see SurrealConnection.checkpoint): the
#: embedded engine stalled at ~74k chunks without one; 25k-chunk checkpoints kept a
#: 100k fill going, and a checkpoint's pause grows with the rows written before it
CHECKPOINT_EVERY_CHUNKS = 20_000

#: rows per INSERT statement
INSERT_BATCH = 50

# Queries are built once from constant field lists; every value travels as a variable.
_GET_SOURCE = f"SELECT {codec.SOURCE_FIELDS} FROM $sid;"  # noqa: S608
_GET_CHUNKS = f"SELECT {codec.CHUNK_FIELDS} FROM $ids;"  # noqa: S608
_CHUNKS_OF_SOURCE = (
    f"SELECT {codec.CHUNK_FIELDS} FROM chunk WHERE source_id = $source "  # noqa: S608
    "ORDER BY ordinal;"
)
_REDACTED_ANYWHERE = (
    f"SELECT {codec.SOURCE_FIELDS} FROM source WHERE lifecycle = 'redacted' "  # noqa: S608
    "ORDER BY id LIMIT $limit;"
)
_REDACTED_IN = (
    f"SELECT {codec.SOURCE_FIELDS} FROM source WHERE lifecycle = 'redacted' "  # noqa: S608
    "AND space IN $spaces ORDER BY id LIMIT $limit;"
)
_SCAN_FIRST = f"SELECT {codec.ENTRY_FIELDS} FROM chunk ORDER BY id LIMIT $limit;"  # noqa: S608
_SCAN_AFTER = (
    f"SELECT {codec.ENTRY_FIELDS} FROM chunk WHERE id > $after "  # noqa: S608
    "ORDER BY id LIMIT $limit;"
)
_LIST_FIRST = f"SELECT {codec.SOURCE_FIELDS} FROM source ORDER BY id LIMIT $limit;"  # noqa: S608
_LIST_AFTER = (
    f"SELECT {codec.SOURCE_FIELDS} FROM source WHERE id > $after "  # noqa: S608
    "ORDER BY id LIMIT $limit;"
)
_LIFECYCLE_OF = (
    "meta::id(id) AS id, scope, scope_key, lifecycle, created_by, marks, superseded_by, "
    "duplicate_of"
)
_LIFECYCLES = f"SELECT {_LIFECYCLE_OF} FROM $ids;"  # noqa: S608
_CHUNKS_WITH_SOURCES = (
    f"LET $c = (SELECT {codec.CHUNK_FIELDS}, "  # noqa: S608
    "type::record('source', source_id) AS src FROM $ids);\n"
    f"RETURN {{chunks: $c, sources: (SELECT {_LIFECYCLE_OF} FROM array::distinct($c.src))}};"
)
_CACHE_INSERT = (
    "INSERT INTO embedding_cache $rows{n} ON DUPLICATE KEY UPDATE vec = $input.vec RETURN NONE;"
)


def _batches(rows: Sequence[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    return [list(rows[i : i + INSERT_BATCH]) for i in range(0, len(rows), INSERT_BATCH)]


class SurrealMemoryStore:
    """Raw sources, chunks and vectors in SurrealDB; one connection, safe to share."""

    def __init__(
        self,
        url: str,
        *,
        username: str | None = None,
        password: str | None = None,
        checkpoint_every: int = CHECKPOINT_EVERY_CHUNKS,
    ) -> None:
        if checkpoint_every < 1:
            raise ValueError("checkpoint_every must be >= 1")
        self._conn = SurrealConnection(url, username=username, password=password)
        self._checkpoint_every = checkpoint_every
        self._written_since_checkpoint = 0
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

    async def save_memory(self, source: Source, chunks: Sequence[EmbeddedChunk]) -> None:
        namespace, space = await self._writable(source.org_id)
        check_memory(source, chunks, space.dimension)
        variables: dict[str, Any] = {
            "sid": RecordID("source", source.source_id),
            "source": codec.source_row(source),
        }
        statements = [
            "BEGIN TRANSACTION;",
            "CREATE $sid CONTENT $source RETURN NONE;",
        ]
        rows = [codec.chunk_row(c.chunk, c.vector, chunk_recall(source, c.chunk)) for c in chunks]
        for n, batch in enumerate(_batches(rows)):
            variables[f"rows{n}"] = batch
            statements.append(f"INSERT INTO chunk $rows{n} RETURN NONE;")
        statements.append("COMMIT TRANSACTION;")
        await self._conn.query(
            namespace, "\n".join(statements), variables, operation="saving a memory", write=True
        )
        self._written_since_checkpoint += len(chunks) + 1
        if self._written_since_checkpoint >= self._checkpoint_every:
            self._written_since_checkpoint = 0
            await self._conn.checkpoint()

    async def get_source(self, org_id: str, source_id: str) -> Source | None:
        namespace = await self._readable(org_id)
        if namespace is None:
            return None
        (rows,) = await self._conn.query(
            namespace,
            _GET_SOURCE,
            {"sid": RecordID("source", source_id)},
            operation="reading a source",
        )
        return codec.source_from_row(rows[0]) if rows else None

    async def get_sources(self, org_id: str, source_ids: Sequence[str]) -> dict[str, Source]:
        rows = await self._select_ids(
            org_id,
            _GET_SOURCE.replace("$sid", "$ids"),
            "source",
            source_ids,
            operation="reading sources",
        )
        found = (codec.source_from_row(row) for row in rows)
        return {s.source_id: s for s in found}

    async def chunks_with_sources(
        self, org_id: str, chunk_ids: Sequence[str]
    ) -> tuple[dict[str, Chunk], dict[str, SourceLifecycle]]:
        wanted = list(dict.fromkeys(chunk_ids))
        namespace = await self._readable(org_id) if wanted else None
        if namespace is None:
            return {}, {}
        *_, answer = await self._conn.query(
            namespace,
            _CHUNKS_WITH_SOURCES,
            {"ids": [RecordID("chunk", key) for key in wanted]},
            operation="reading chunks and their sources",
        )
        chunks = (codec.chunk_from_row(row) for row in answer["chunks"] or [])
        sources = (codec.lifecycle_from(row) for row in answer["sources"] or [])
        return {c.chunk_id: c for c in chunks}, {s.source_id: s for s in sources}

    async def source_lifecycles(
        self, org_id: str, source_ids: Sequence[str]
    ) -> dict[str, SourceLifecycle]:
        rows = await self._select_ids(
            org_id, _LIFECYCLES, "source", source_ids, operation="reading source lifecycles"
        )
        found = (codec.lifecycle_from(row) for row in rows)
        return {s.source_id: s for s in found}

    async def update_source(
        self, source: Source, *, expected_version: int, drop_text: bool
    ) -> None:
        namespace, space = await self._writable(source.org_id)
        if await self.get_source(source.org_id, source.source_id) is None:
            raise NotFoundError(ReasonCode.NOT_FOUND, f"no source with id {source.source_id!r}")
        chunks = await self.chunks_of_source(source.org_id, source.source_id)
        try:
            await corrections.update_source(
                self._conn, namespace, space, source, expected_version, drop_text, chunks
            )
        except UpstreamError:
            now = await self.get_source(source.org_id, source.source_id)
            if now is None or now.version != expected_version:
                raise ConflictError(
                    ReasonCode.SOURCE_CHANGED,
                    f"source {source.source_id} changed since it was read",
                ) from None
            raise

    async def list_sources(self, org_id: str, after: str | None, limit: int) -> list[Source]:
        namespace = await self._readable(org_id)
        if namespace is None or limit < 1:
            return []
        sql, variables = _LIST_FIRST, dict[str, Any]({"limit": int(limit)})
        if after is not None:
            sql, variables = _LIST_AFTER, {**variables, "after": RecordID("source", after)}
        (rows,) = await self._conn.query(namespace, sql, variables, operation="listing sources")
        return [codec.source_from_row(row) for row in rows or []]

    async def linked_sources(self, org_id: str, source_id: str) -> list[str]:
        namespace = await self._readable(org_id)
        if namespace is None:
            return []
        return await corrections.linked_sources(self._conn, namespace, source_id)

    async def _select_ids(
        self, org_id: str, sql: str, table: str, ids: Sequence[str], *, operation: str
    ) -> list[dict[str, Any]]:
        """Rows of ``table`` with these ids (each once); none for an unknown organisation."""
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return []
        namespace = await self._readable(org_id)
        if namespace is None:
            return []
        (rows,) = await self._conn.query(
            namespace,
            sql,
            {"ids": [RecordID(table, key) for key in wanted]},
            operation=operation,
        )
        return list(rows or [])

    async def get_chunks(self, org_id: str, chunk_ids: Sequence[str]) -> dict[str, Chunk]:
        rows = await self._select_ids(
            org_id, _GET_CHUNKS, "chunk", chunk_ids, operation="reading chunks"
        )
        chunks = (codec.chunk_from_row(row) for row in rows)
        return {c.chunk_id: c for c in chunks}

    async def chunks_of_source(self, org_id: str, source_id: str) -> list[Chunk]:
        namespace = await self._readable(org_id)
        if namespace is None:
            return []
        (rows,) = await self._conn.query(
            namespace,
            _CHUNKS_OF_SOURCE,
            {"source": source_id},
            operation="listing a source's chunks",
        )
        return [codec.chunk_from_row(row) for row in rows or []]

    async def count_chunks(self, org_id: str) -> int:
        namespace = await self._readable(org_id)
        if namespace is None:
            return 0
        (rows,) = await self._conn.query(
            namespace, "SELECT count() AS n FROM chunk GROUP ALL;", operation="counting chunks"
        )
        return int(rows[0]["n"]) if rows else 0

    async def count_sources(self, org_id: str) -> int:
        namespace = await self._readable(org_id)
        if namespace is None:
            return 0
        (rows,) = await self._conn.query(
            namespace, "SELECT count() AS n FROM source GROUP ALL;", operation="counting sources"
        )
        return int(rows[0]["n"]) if rows else 0

    async def source_states(self, org_id: str, space: ScopeRef, limit: int) -> list[SourceState]:
        namespace = await self._readable(org_id)
        if namespace is None or limit < 1:
            return []
        (rows,) = await self._conn.query(
            namespace,
            "SELECT meta::id(id) AS id, lifecycle FROM source WHERE space = $space "
            "ORDER BY id LIMIT $limit;",
            {"space": codec.ref_code(space), "limit": int(limit)},
            operation="listing a space's sources",
        )
        return [SourceState(row["id"], LifecycleState(row["lifecycle"])) for row in rows or []]

    async def redacted_sources(
        self, org_id: str, visible: frozenset[ScopeRef] | None, limit: int
    ) -> list[Source]:
        namespace = await self._readable(org_id)
        if namespace is None or limit < 1 or (visible is not None and not visible):
            return []
        spaces = None if visible is None else sorted(codec.ref_code(r) for r in visible)
        (rows,) = await self._conn.query(
            namespace,
            _REDACTED_ANYWHERE if spaces is None else _REDACTED_IN,
            {"spaces": spaces or [], "limit": int(limit)},
            operation="listing redacted sources",
        )
        return [codec.source_from_row(row) for row in rows or []]

    async def scan_index_entries(
        self, org_id: str, after: str | None, limit: int
    ) -> list[IndexEntry]:
        if limit < 1:
            return []
        namespace = await self._readable(org_id)
        if namespace is None:
            return []
        (rows,) = await self._conn.query(
            namespace,
            _SCAN_FIRST if after is None else _SCAN_AFTER,
            {"limit": int(limit)}
            if after is None
            else {"after": RecordID("chunk", after), "limit": int(limit)},
            operation="scanning chunks",
        )
        return [codec.entry_from_row(row) for row in rows or []]

    async def cached_embeddings(
        self, org_id: str, model: str, hashes: Sequence[str]
    ) -> dict[str, Vector]:
        rows = await self._select_ids(
            org_id,
            "SELECT model, hash, vec FROM $ids;",
            "embedding_cache",
            [codec.cache_key(model, h) for h in hashes],
            operation="reading the embedding cache",
        )
        found: dict[str, Vector] = {}
        for row in rows:
            if row.get("model") == model:
                found[row["hash"]] = codec.unpack_vector(row["vec"])
        return found

    async def cache_embeddings(
        self, org_id: str, model: str, vectors: Mapping[str, Vector]
    ) -> None:
        if not vectors:
            return
        namespace, _ = await self._writable(org_id)
        rows = [
            {
                "id": codec.cache_key(model, h),
                "model": model,
                "hash": h,
                "vec": codec.pack_vector(v),
            }
            for h, v in vectors.items()
        ]
        statements = []
        variables: dict[str, Any] = {}
        for n, batch in enumerate(_batches(rows)):
            variables[f"rows{n}"] = batch
            statements.append(_CACHE_INSERT.replace("{n}", str(n)))
        await self._conn.query(
            namespace,
            "\n".join(statements),
            variables,
            operation="writing the embedding cache",
            write=True,
        )

    async def drop_organization(self, org_id: str) -> None:
        namespace = codec.namespace_for(org_id)
        async with self._preparing:
            await self._conn.query(
                None,
                f"REMOVE NAMESPACE IF EXISTS {namespace};",
                operation="dropping an organisation",
                write=True,
            )
            self._spaces.pop(org_id, None)

    async def compact(self) -> CompactionReport:
        """Rewrite the embedded engine so deleted rows leave its files (see compaction)."""
        return await compact(self._conn)

    async def close(self) -> None:
        await self._conn.close()
