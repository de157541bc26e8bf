"""The SynthesisRunStore port on SurrealDB 3: runs in each organisation's own namespace.

A run is stored as its JSON encoding (``body``) beside the few fields a
query needs (who cited what, when): runs are read whole by id and replaced
whole after each stage, so a flexible nested schema would buy nothing and
JSON keeps datetimes exact (msgspec writes RFC 3339 with the offset). The
namespace goes with the organisation (``drop_organization`` removes it).
Reads of an organisation with no namespace answer from ``INFO FOR ROOT``
without creating it, as the audit log does.
"""

from datetime import UTC

import msgspec
from surrealdb import RecordID

from adapters.surreal.codec import namespace_for
from adapters.surreal.connection import SurrealConnection
from adapters.surreal.namespace_tables import TableDefiner
from application.synthesis.records import SynthesisRun

__all__ = ["SurrealSynthesisRuns"]

_SCHEMA = """
DEFINE TABLE IF NOT EXISTS synthesis_run SCHEMAFULL;
DEFINE FIELD IF NOT EXISTS run_id ON synthesis_run TYPE string;
DEFINE FIELD IF NOT EXISTS created_at ON synthesis_run TYPE string;
DEFINE FIELD IF NOT EXISTS artifact_source_id ON synthesis_run TYPE option<string>;
DEFINE FIELD IF NOT EXISTS cited_source_ids ON synthesis_run TYPE array<string>;
DEFINE FIELD IF NOT EXISTS body ON synthesis_run TYPE string;
DEFINE FIELD IF NOT EXISTS actor_id ON synthesis_run TYPE option<string>;
DEFINE INDEX IF NOT EXISTS synthesis_run_cites ON synthesis_run FIELDS cited_source_ids;
DEFINE INDEX IF NOT EXISTS synthesis_run_actor ON synthesis_run FIELDS actor_id;
"""

_CITING = (
    "SELECT body, created_at, run_id FROM synthesis_run WHERE artifact_source_id != NONE "
    "AND cited_source_ids CONTAINS $sid ORDER BY created_at, run_id;"
)

#: a principal's runs, newest first (rows saved before ``actor_id`` was kept are not listed)
_OF_ACTOR = (
    "SELECT body, created_at, run_id FROM synthesis_run WHERE actor_id = $actor "
    "ORDER BY created_at DESC, run_id DESC LIMIT $limit;"
)


class SurrealSynthesisRuns:
    def __init__(self, connection: SurrealConnection) -> None:
        self._conn = connection
        self._tables = TableDefiner(connection, _SCHEMA, "defining synthesis runs")

    async def save_run(self, run: SynthesisRun) -> None:
        namespace = namespace_for(run.org_id)
        await self._tables.ensure(namespace)
        row = {
            "run_id": run.run_id,
            # RFC 3339 in UTC sorts as text
            "created_at": run.created_at.astimezone(UTC).isoformat(),
            "artifact_source_id": run.artifact_source_id,
            "cited_source_ids": list(run.cited_source_ids),
            "actor_id": run.actor_id,
            "body": msgspec.json.encode(run).decode(),
        }
        await self._conn.query(
            namespace,
            "UPSERT $id CONTENT $row RETURN NONE;",
            {"id": RecordID("synthesis_run", run.run_id), "row": row},
            operation="saving a synthesis run",
            write=True,
        )

    async def get_run(self, org_id: str, run_id: str) -> SynthesisRun | None:
        namespace = namespace_for(org_id)
        if not await self._tables.present(namespace):
            return None
        (rows,) = await self._conn.query(
            namespace,
            "SELECT body FROM $id;",
            {"id": RecordID("synthesis_run", run_id)},
            operation="reading a synthesis run",
        )
        if not rows:
            return None
        return msgspec.json.decode(rows[0]["body"], type=SynthesisRun)

    async def runs_citing(self, org_id: str, source_id: str) -> list[SynthesisRun]:
        namespace = namespace_for(org_id)
        if not await self._tables.present(namespace):
            return []
        (rows,) = await self._conn.query(
            namespace, _CITING, {"sid": source_id}, operation="finding citing artifacts"
        )
        return [msgspec.json.decode(r["body"], type=SynthesisRun) for r in rows or []]

    async def runs_of(self, org_id: str, actor_id: str, limit: int) -> list[SynthesisRun]:
        namespace = namespace_for(org_id)
        if not await self._tables.present(namespace):
            return []
        (rows,) = await self._conn.query(
            namespace,
            _OF_ACTOR,
            {"actor": actor_id, "limit": limit},
            operation="listing synthesis runs",
        )
        return [msgspec.json.decode(r["body"], type=SynthesisRun) for r in rows or []]

    async def drop_runs(self, org_id: str) -> None:
        namespace = namespace_for(org_id)
        if not await self._tables.present(namespace):
            return
        await self._conn.query(
            namespace,
            "DELETE synthesis_run RETURN NONE;",
            operation="dropping synthesis runs",
            write=True,
        )
