"""The change sequence on SurrealDB (application.ports.changes): the writes' stamp and its reads.

Every index-visible write runs ``ADVANCE`` then ``STAMP`` inside its own
transaction: the head ``change_head:org`` (schema v8) moves one step and the
sources the write changed carry the new sequence in ``changed`` (indexed), so
a catch-up reads only sources stamped after its snapshot's sequence. The head
is one row, so concurrent writers conflict on it instead of interleaving
numbers; on the embedded engine writes already take turns. ``UPSERT``: a
namespace written before v8 (its tests simulate an older release) still writes.
"""

from collections.abc import Sequence
from typing import Any

from surrealdb import RecordID

from adapters.surreal import codec
from adapters.surreal.connection import SurrealConnection
from application.ports.changes import ChangePosition, SourceChanges
from application.ports.records import IndexEntry

__all__ = ["ADVANCE", "STAMP", "SurrealChangeLog", "stamped"]

#: one step of the organisation's sequence, as ``$seq``
ADVANCE = "LET $seq = (UPSERT ONLY change_head:org SET sequence += 1 RETURN VALUE sequence);"
#: the changed sources (``$changed``: their record ids) carry it
STAMP = "UPDATE $changed SET changed = $seq RETURN NONE;"

_POSITION = "SELECT sequence, epoch FROM ONLY change_head:org;"
_CHANGED = (
    "SELECT meta::id(id) AS id, changed FROM source WHERE changed > $after "
    "ORDER BY changed, id LIMIT $limit;"
)


def stamped(source_ids: Sequence[str]) -> dict[str, Any]:
    """The ``$changed`` variable of ``STAMP``."""
    return {"changed": [RecordID("source", sid) for sid in dict.fromkeys(source_ids)]}


def _position(row: Any) -> ChangePosition:
    if not row:
        return ChangePosition()
    return ChangePosition(epoch=str(row["epoch"]), sequence=int(row["sequence"]))


class SurrealChangeLog:
    _conn: SurrealConnection

    async def _readable(self, org_id: str) -> str | None:
        raise NotImplementedError

    async def change_position(self, org_id: str) -> ChangePosition:
        namespace = await self._readable(org_id)
        if namespace is None:
            return ChangePosition()
        (row,) = await self._conn.query(
            namespace, _POSITION, operation="reading the change sequence"
        )
        return _position(row)

    async def changed_sources(self, org_id: str, after: int, limit: int) -> SourceChanges:
        namespace = await self._readable(org_id)
        if namespace is None:
            return SourceChanges(position=ChangePosition())
        head, rows = await self._conn.query(
            namespace,
            _POSITION + "\n" + _CHANGED,
            {"after": int(after), "limit": max(int(limit), 0)},
            operation="reading changed sources",
        )
        changes = tuple((int(row["changed"]), str(row["id"])) for row in rows or [])
        return SourceChanges(position=_position(head), changes=changes if limit > 0 else ())

    async def index_entries_of(self, org_id: str, source_ids: Sequence[str]) -> list[IndexEntry]:
        namespace = await self._readable(org_id)
        wanted = list(dict.fromkeys(source_ids))
        if namespace is None or not wanted:
            return []
        # one statement per source: each reads the chunk_source index, not the table
        results = await self._conn.query(
            namespace,
            "\n".join(
                codec.ENTRIES_OF_SOURCE.replace("$source", f"$s{n}") for n in range(len(wanted))
            ),
            {f"s{n}": sid for n, sid in enumerate(wanted)},
            operation="reading index entries of sources",
        )
        entries = [codec.entry_from_row(row) for rows in results for row in rows or []]
        return sorted(entries, key=lambda e: e.chunk_id)
