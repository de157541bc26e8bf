"""The ImportStore port on SurrealDB 3: import records and dedupe ledgers per organisation.

Why the record is one JSON document: an import record is only ever read back
whole (to resume it or show it), and its nested parts (counters, authority,
the bounded problem list) change together; msgspec's JSON keeps the exact
types and UTC offsets the contract asks for. ``created_at`` is a column too,
for listing newest first.

Why ledger rows are keyed by ``[space, key]``: the question "which of these
keys were written to this space" becomes a lookup of those record ids, with
no scan and no index to maintain, and any key text is safe as an id part.

Like the audit log, reads of an organisation without a namespace answer
empty without creating it, and the tables are defined once per namespace.
"""

from collections.abc import Iterable
from datetime import datetime
from typing import Any

import msgspec
from surrealdb import RecordID
from surrealdb.errors import NotFoundError as SurrealNotFound

from adapters.surreal.codec import namespace_for, space_code
from adapters.surreal.connection import SurrealConnection
from adapters.surreal.control_codec import to_value
from adapters.surreal.memory_store import INSERT_BATCH
from adapters.surreal.namespace_tables import TableDefiner
from application.imports.jobs import ImportJob
from domain.errors import UpstreamError
from domain.reasons import ReasonCode
from domain.scopes import MemoryScope

__all__ = ["SurrealImportStore"]

_SCHEMA = """
DEFINE TABLE IF NOT EXISTS import_job SCHEMAFULL;
DEFINE FIELD IF NOT EXISTS import_id ON import_job TYPE string;
DEFINE FIELD IF NOT EXISTS created_at ON import_job TYPE datetime;
DEFINE FIELD IF NOT EXISTS doc ON import_job TYPE string;
DEFINE TABLE IF NOT EXISTS import_key SCHEMAFULL;
DEFINE FIELD IF NOT EXISTS space ON import_key TYPE string;
DEFINE FIELD IF NOT EXISTS key ON import_key TYPE string;
"""

_IMPORT_PENDING = """
LET $mine = SELECT VALUE meta::id(id) FROM source
    WHERE space = $space AND string::contains(metadata, $needle);
SELECT count() AS n FROM chunk WHERE embed_state = 'pending' AND source_id IN $mine GROUP ALL;
"""

_DECODER = msgspec.json.Decoder(ImportJob)


def _no_memory_yet(exc: UpstreamError) -> bool:
    """The memory tables are missing: an organisation that imported nothing yet holds nothing."""
    return isinstance(exc.__cause__, SurrealNotFound)


_METADATA = msgspec.json.Decoder(dict[str, Any])


class SurrealImportStore:
    def __init__(self, connection: SurrealConnection) -> None:
        self._conn = connection
        self._tables = TableDefiner(connection, _SCHEMA, "defining the import tables")

    async def _readable(self, org_id: str) -> str | None:
        """The namespace to read, or None when the organisation has none yet."""
        namespace = namespace_for(org_id)
        return namespace if await self._tables.exists(namespace) else None

    async def save_job(self, job: ImportJob) -> None:
        namespace = namespace_for(job.org_id)
        await self._tables.ensure(namespace)
        row = {
            "import_id": job.import_id,
            "created_at": to_value(job.created_at),
            "doc": msgspec.json.encode(job).decode("utf-8"),
        }
        await self._conn.query(
            namespace,
            "UPSERT $id CONTENT $row RETURN NONE;",
            {"id": RecordID("import_job", job.import_id), "row": row},
            operation="saving an import record",
            write=True,
        )

    def _decode(self, row: Any) -> ImportJob:
        try:
            return _DECODER.decode(row["doc"])
        except (KeyError, TypeError, msgspec.DecodeError) as exc:
            raise UpstreamError(
                ReasonCode.STORE_FAILED, "an import record could not be read back"
            ) from exc

    async def get_job(self, org_id: str, import_id: str) -> ImportJob | None:
        namespace = await self._readable(org_id)
        if namespace is None:
            return None
        (rows,) = await self._conn.query(
            namespace,
            "SELECT doc FROM $id;",
            {"id": RecordID("import_job", import_id)},
            operation="reading an import record",
        )
        return self._decode(rows[0]) if rows else None

    async def list_jobs(self, org_id: str) -> list[ImportJob]:
        namespace = await self._readable(org_id)
        if namespace is None:
            return []
        (rows,) = await self._conn.query(
            namespace,
            "SELECT doc, created_at, import_id FROM import_job "
            "ORDER BY created_at DESC, import_id DESC;",
            operation="listing import records",
        )
        return [self._decode(row) for row in rows or []]

    async def known_keys(self, org_id: str, space: str, keys: Iterable[str]) -> set[str]:
        wanted = list(dict.fromkeys(keys))
        namespace = await self._readable(org_id) if wanted else None
        if namespace is None:
            return set()
        found: set[str] = set()
        for start in range(0, len(wanted), INSERT_BATCH):
            ids = [
                RecordID("import_key", [space, key]) for key in wanted[start : start + INSERT_BATCH]
            ]
            (rows,) = await self._conn.query(
                namespace,
                "SELECT key FROM $ids;",
                {"ids": ids},
                operation="reading the import ledger",
            )
            found.update(row["key"] for row in rows or [] if isinstance(row, dict))
        return found

    async def add_keys(self, org_id: str, space: str, keys: Iterable[str]) -> None:
        rows = [
            {"id": RecordID("import_key", [space, key]), "space": space, "key": key}
            for key in dict.fromkeys(keys)
        ]
        if not rows:
            return
        namespace = namespace_for(org_id)
        await self._tables.ensure(namespace)
        for start in range(0, len(rows), INSERT_BATCH):
            await self._conn.query(
                namespace,
                "INSERT IGNORE INTO import_key $rows RETURN NONE;",
                {"rows": rows[start : start + INSERT_BATCH]},
                operation="adding to the import ledger",
                write=True,
            )

    async def written_since(
        self, org_id: str, space: str, import_id: str, since: datetime
    ) -> list[str]:
        """Read from the memory store's ``source`` table in the same namespace (once per run)."""
        namespace = await self._readable(org_id)
        if namespace is None:
            return []
        scope, _, scope_key = space.partition("/")
        try:
            (rows,) = await self._conn.query(
                namespace,
                "SELECT metadata, created_at, meta::id(id) AS id FROM source "
                "WHERE space = $space AND created_at >= $since ORDER BY created_at, id;",
                {
                    "space": space_code(MemoryScope(scope), scope_key or None),
                    "since": to_value(since),
                },
                operation="finding an import's latest writes",
            )
        except UpstreamError as exc:
            if not _no_memory_yet(exc):
                raise
            return []
        keys = []
        for row in rows or []:
            try:
                meta = _METADATA.decode(row["metadata"])
            except (KeyError, TypeError, msgspec.DecodeError):
                continue
            if meta.get("import_id") == import_id and isinstance(meta.get("import_key"), str):
                keys.append(meta["import_key"])
        return keys

    async def embedding_pending(self, org_id: str, space: str, import_id: str) -> int | None:
        """The import's sources are found by the ``"import_id":"<id>"`` member of their JSON
        metadata (a scalar value's quotes are escaped, so only the key itself matches); a
        status read, not a hot path: it scans the space's sources."""
        namespace = await self._readable(org_id)
        if namespace is None:
            return 0
        scope, _, scope_key = space.partition("/")
        needle = '"import_id":' + msgspec.json.encode(import_id).decode()
        try:
            (_, rows) = await self._conn.query(
                namespace,
                _IMPORT_PENDING,
                {"space": space_code(MemoryScope(scope), scope_key or None), "needle": needle},
                operation="counting an import's pending vectors",
            )
        except UpstreamError as exc:
            if not _no_memory_yet(exc):
                raise
            return 0
        return int(rows[0]["n"]) if rows else 0

    async def close(self) -> None:
        return None
