"""The AuditLog port on SurrealDB 3: receipts in each organisation's own namespace.

Why per organisation: deleting a tenant is removing its namespace, and its
receipts must go with it; no query for one organisation can read another's.

Why reads look before they enter: a ``USE NS`` creates the namespace as a side
effect, so ``recent`` for an organisation with no namespace answers ``[]``
from ``INFO FOR ROOT`` without touching it (as ``SurrealMemoryStore.space_of``
does). The table is defined lazily, once per namespace and connection
(``namespace_tables.TableDefiner``).

A batch is written one transaction per organisation, in INSERT statements of
at most ``INSERT_BATCH`` rows; a receipt id already taken in the organisation
is refused with ``ConflictError(already_exists)`` and nothing of that
organisation's part of the batch is written.
"""

from collections.abc import Sequence
from typing import Any

from adapters.surreal.codec import namespace_for
from adapters.surreal.connection import SurrealConnection
from adapters.surreal.control_codec import as_conflict, from_row, require_aware, to_row
from adapters.surreal.control_schema import AUDIT_SCHEMA
from adapters.surreal.memory_store import INSERT_BATCH
from adapters.surreal.namespace_tables import TableDefiner
from application.trust.records import AuditReceipt
from domain.errors import UpstreamError

__all__ = ["SurrealAuditLog"]

_RECENT = "SELECT * FROM audit_receipt ORDER BY at DESC, id DESC LIMIT $limit;"
_RECENT_NAMING = (
    "SELECT * FROM (SELECT * FROM audit_receipt ORDER BY at DESC, id DESC LIMIT $scanned) "
    "WHERE ids CONTAINSANY $ids ORDER BY at DESC, id DESC LIMIT $limit;"
)
_RECENT_BY = (
    "SELECT * FROM audit_receipt WHERE actor_id = $actor AND action IN $actions "
    "ORDER BY at DESC, id DESC LIMIT $limit;"
)


class SurrealAuditLog:
    """Receipts of allowed and denied operations; one connection shared with the memory store."""

    def __init__(self, connection: SurrealConnection) -> None:
        self._conn = connection
        self._tables = TableDefiner(connection, AUDIT_SCHEMA, "defining the audit log")

    async def record(self, receipts: Sequence[AuditReceipt]) -> None:
        by_org: dict[str, list[dict[str, Any]]] = {}
        for receipt in receipts:
            require_aware(receipt.at)
            row = to_row(receipt)
            row["id"] = receipt.receipt_id
            by_org.setdefault(receipt.org_id, []).append(row)
        for org_id, rows in by_org.items():
            await self._write(namespace_for(org_id), rows)

    async def _write(self, namespace: str, rows: list[dict[str, Any]]) -> None:
        await self._tables.ensure(namespace)
        variables: dict[str, Any] = {}
        statements = ["BEGIN TRANSACTION;"]
        for n, start in enumerate(range(0, len(rows), INSERT_BATCH)):
            variables[f"rows{n}"] = rows[start : start + INSERT_BATCH]
            statements.append(f"INSERT INTO audit_receipt $rows{n} RETURN NONE;")
        statements.append("COMMIT TRANSACTION;")
        try:
            await self._conn.query(
                namespace,
                "\n".join(statements),
                variables,
                operation="recording audit receipts",
                write=True,
            )
        except UpstreamError as exc:
            conflict = as_conflict(exc, "an audit receipt with this id")
            if conflict is not None:
                raise conflict from exc
            raise

    async def recent(self, org_id: str, limit: int) -> list[AuditReceipt]:
        return await self._select(org_id, _RECENT, {"limit": int(limit)})

    async def recent_naming(
        self, org_id: str, ids: Sequence[str], scanned: int, limit: int
    ) -> list[AuditReceipt]:
        # filtered in the engine: only the matches are decoded, not every scanned receipt
        if not ids or scanned < 1:
            return []
        variables = {"ids": list(ids), "scanned": int(scanned), "limit": int(limit)}
        return await self._select(org_id, _RECENT_NAMING, variables)

    async def recent_by(
        self, org_id: str, actor_id: str, actions: Sequence[str], limit: int
    ) -> list[AuditReceipt]:
        variables = {"actor": actor_id, "actions": list(actions), "limit": int(limit)}
        return await self._select(org_id, _RECENT_BY, variables)

    async def _select(self, org_id: str, sql: str, variables: dict[str, Any]) -> list[AuditReceipt]:
        if variables["limit"] < 1:
            return []
        namespace = namespace_for(org_id)
        if not await self._tables.present(namespace):
            return []
        (rows,) = await self._conn.query(
            namespace, sql, variables, operation="reading audit receipts"
        )
        return [from_row(AuditReceipt, row) for row in rows or []]
