"""Copy every live definition and row of one SurrealDB engine into another.

Why a logical copy: the embedded engine (SurrealDB 3 on SurrealKV) keeps the
bytes of deleted rows. Rows over 4 KiB (every chunk: its text travels with a
384-float ``emb`` array) live in an append-only value log that is only
unlinked when no live row points into it, and ``ALTER ... COMPACT`` answers
"the storage layer does not support compaction requests" on this build (see
benchmarks/delete_residue.py for the measurements). An engine that received
only the live rows holds no deleted text at all, so a rewrite is the one
mechanism that makes a delete reach the disk.

What is copied: every namespace, database, table, field, index, analyzer,
function, param, user and access definition, replayed with ``OVERWRITE`` (so
fields SurrealDB derives itself, like ``emb.*``, replay cleanly), then every
row of every stored table in id order, in batches. Indexes are defined before
the rows, so they are rebuilt from the live rows only. Views (``AS SELECT``)
are redefined, not copied: they recompute from their sources.
"""

import re
import struct
from typing import Any

import msgspec

__all__ = ["CopyCounts", "copy_live_data"]

#: rows per INSERT (larger batches misbehave on the embedded engine)
BATCH = 50

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_DEFINE = re.compile(r"\s*DEFINE\s+(\w+)\s+(?:OVERWRITE\s+|IF NOT EXISTS\s+)?", re.IGNORECASE)
#: definition kinds replayed per level, in an order where each only needs the ones before
_ROOT_KINDS = ("users", "accesses")
_NS_KINDS = ("users", "accesses")
_DB_KINDS = ("analyzers", "params", "functions", "sequences", "users", "accesses")
_TABLE_KINDS = ("fields", "indexes", "events")
#: a field the adapter may store twice: ``emb`` (floats, decoded ~100x slower by the SDK)
#: is rebuilt from ``vec`` (little-endian float32 bytes) where the row held both; a row
#: kept for the in-process index holds ``vec`` alone and is copied so (``float_vectors``)
_FLOATS, _PACKED = "emb", "vec"
#: whether the row read held ``emb``: asked of the engine, dropped before the copy
_HELD = "__held_floats"


class CopyCounts(msgspec.Struct, kw_only=True):
    namespaces: int = 0
    tables: int = 0
    rows: int = 0


def _name(value: str) -> str:
    if not _NAME.match(value):
        raise ValueError("a stored name is not a plain identifier; refusing to rewrite the store")
    return value


def _overwriting(statement: str) -> str:
    """``DEFINE KIND ...`` -> ``DEFINE KIND OVERWRITE ...`` (replay is then idempotent)."""
    match = _DEFINE.match(statement)
    if match is None:
        raise ValueError("a stored definition does not start with DEFINE")
    return f"DEFINE {match.group(1)} OVERWRITE {statement[match.end() :]}"


async def _last(db: Any, sql: str, variables: dict[str, Any] | None = None) -> Any:
    results = await db.query(sql, variables or {})
    return results[-1] if isinstance(results, list) and results else results


async def _replay(db: Any, prefix: str, info: dict[str, Any], kinds: tuple[str, ...]) -> None:
    statements = [_overwriting(text) for kind in kinds for text in (info.get(kind) or {}).values()]
    if statements:
        await db.query(prefix + ";\n".join(statements) + ";")


def _with_floats(row: dict[str, Any]) -> dict[str, Any]:
    packed = row.get(_PACKED)
    held = row.pop(_HELD, False)
    if held and isinstance(packed, bytes | bytearray) and len(packed) % 4 == 0:
        row[_FLOATS] = list(struct.unpack(f"<{len(packed) // 4}f", packed))
    return row


async def _packed_twin(db: Any, prefix: str, table: str) -> bool:
    """Whether ``table`` declares both ``emb`` and ``vec``: then ``emb`` is not read back."""
    info = await _last(db, f"{prefix}INFO FOR TABLE {table};")
    fields = (info or {}).get("fields") or {}
    return _FLOATS in fields and _PACKED in fields


async def _copy_rows(src: Any, dst: Any, prefix: str, table: str, relation: bool) -> int:
    omit = f", {_FLOATS} IS NOT NONE AS `{_HELD}` OMIT {_FLOATS}"
    omit = omit if await _packed_twin(src, prefix, table) else ""
    insert = f"{prefix}INSERT {'RELATION ' if relation else ''}INTO {table} $rows RETURN NONE;"
    # ``table`` passed _name (a plain identifier); every value travels as a variable
    first = f"{prefix}SELECT *{omit} FROM {table} ORDER BY id LIMIT {BATCH};"  # noqa: S608
    after = f"{prefix}SELECT *{omit} FROM {table} WHERE id > $after ORDER BY id LIMIT {BATCH};"  # noqa: S608
    copied, last_id = 0, None
    while True:
        variables: dict[str, Any] = {} if last_id is None else {"after": last_id}
        rows = await _last(src, first if last_id is None else after, variables) or []
        if not rows:
            return copied
        batch = [_with_floats(dict(row)) if omit else dict(row) for row in rows]
        await dst.query(insert, {"rows": batch})
        copied += len(batch)
        last_id = rows[-1]["id"]
        if len(rows) < BATCH:
            return copied


async def _copy_database(src: Any, dst: Any, ns: str, db_name: str, counts: CopyCounts) -> None:
    prefix = f"USE NS {ns} DB {db_name};\n"
    await dst.query(f"USE NS {ns}; DEFINE DATABASE OVERWRITE {db_name};")
    info = await _last(src, f"{prefix}INFO FOR DB;") or {}
    await _replay(dst, prefix, info, _DB_KINDS)
    tables = {_name(t): str(d) for t, d in (info.get("tables") or {}).items()}
    for table, definition in tables.items():
        await dst.query(prefix + _overwriting(definition) + ";")
        table_info = await _last(src, f"{prefix}INFO FOR TABLE {table};") or {}
        await _replay(dst, prefix, table_info, _TABLE_KINDS)
    for table, definition in tables.items():
        if " AS SELECT " in definition.upper():
            continue
        relation = "TYPE RELATION" in definition.upper()
        counts.rows += await _copy_rows(src, dst, prefix, table, relation)
        counts.tables += 1


async def copy_live_data(src: Any, dst: Any) -> CopyCounts:
    """Replay ``src``'s definitions and live rows into the empty engine ``dst``."""
    counts = CopyCounts()
    root = await _last(src, "INFO FOR ROOT;") or {}
    await _replay(dst, "", root, _ROOT_KINDS)
    for ns in map(_name, root.get("namespaces") or {}):
        await dst.query(f"DEFINE NAMESPACE OVERWRITE {ns};")
        ns_info = await _last(src, f"USE NS {ns};\nINFO FOR NS;") or {}
        await _replay(dst, f"USE NS {ns};\n", ns_info, _NS_KINDS)
        for db_name in map(_name, ns_info.get("databases") or {}):
            await _copy_database(src, dst, ns, db_name, counts)
        counts.namespaces += 1
    return counts
