"""A chunk's vector as floats (``emb``) only where SurrealDB's own HNSW index reads it.

Why: every vector is stored as ``vec`` (float32 bytes), which the adapter and
the in-process index read. The ``emb`` copy (an array of 384 floats, each a
value the engine stores and the SDK encodes one at a time) serves only the
native index's HNSW, and writing it halved the rate at which the embedding
lane attached vectors (docs/decisions/embedded-surrealdb.md). So a store
opened for the in-process index writes ``vec`` alone and marks the organisation
(``meta:vectors.packed_only``); opening it for the native index copies each
such row's ``vec`` into ``emb`` first, then defines the indexes over complete
rows. A store written before this kept both on every row and has no mark.
"""

import logging
from typing import Any

from adapters.surreal import codec
from adapters.surreal.connection import RELEASE_SCANNED_EVERY, SurrealConnection

__all__ = ["FILL_PAGE", "MARK_PACKED_ONLY", "fill_floats"]

_log = logging.getLogger("tessera.store")

#: chunks read per page while filling (each ~1.5 KB of ``vec``)
FILL_PAGE = 500

#: run where the in-process index is kept: rows written from now on may lack ``emb``
MARK_PACKED_ONLY = "UPSERT meta:vectors SET packed_only = true RETURN NONE;"
_MARKED = "SELECT VALUE packed_only FROM meta:vectors;"
_UNMARK = "UPSERT meta:vectors SET packed_only = false RETURN NONE;"
_FIELDS = "meta::id(id) AS id, source_id, vec, emb IS NONE AS bare"
# pages by the chunk_source index, as the index rebuild's scan does (an id cursor made the
# engine walk the table from its start on every page)
_PAGE = (
    f"SELECT {_FIELDS} FROM chunk WHERE source_id > $after "  # noqa: S608
    "ORDER BY source_id LIMIT $limit;"
)
_OF_SOURCE = f"SELECT {_FIELDS} FROM chunk WHERE source_id = $source;"  # noqa: S608
#: a row whose vector changed since it was read keeps its own (it was written with ``emb``)
_FILL = """FOR $r IN $rows {
    UPDATE type::record('chunk', $r.id) SET emb = $r.emb WHERE emb IS NONE AND vec = $r.vec
        RETURN NONE;
};"""


async def _rows(conn: SurrealConnection, namespace: str, after: str, limit: int) -> list[Any]:
    """One page in ``source_id`` order, its last source read whole (a page may cut it)."""
    (rows,) = await conn.query(
        namespace, _PAGE, {"after": after, "limit": limit}, operation="reading vectors to fill"
    )
    rows = list(rows or [])
    if len(rows) >= limit:
        last = rows[-1]["source_id"]
        (whole,) = await conn.query(
            namespace, _OF_SOURCE, {"source": last}, operation="reading vectors to fill"
        )
        rows = [r for r in rows if r["source_id"] != last] + list(whole or [])
    return rows


async def fill_floats(conn: SurrealConnection, namespace: str, page: int = FILL_PAGE) -> int:
    """Give every chunk holding only ``vec`` its ``emb`` copy, where the organisation is
    marked as holding such rows; returns how many were filled."""
    (marked,) = await conn.query(namespace, _MARKED, operation="reading the vector mark")
    if not marked or marked[0] is not True:
        return 0
    filled, read, after = 0, 0, ""  # every source id is non-empty
    while rows := await _rows(conn, namespace, after, page):
        read += len(rows)
        bare = [
            {"id": r["id"], "vec": r["vec"], "emb": codec.unpack_vector(r["vec"])}
            for r in rows
            if r.get("bare") and isinstance(r.get("vec"), bytes | bytearray)
        ]
        if bare:
            await conn.query(
                namespace, _FILL, {"rows": bare}, operation="filling float vectors", write=True
            )
            filled += len(bare)
        after = max(str(r["source_id"]) for r in rows)
        if read >= RELEASE_SCANNED_EVERY:  # a long fill: its progress, the engine's memory back
            _log.info("float vectors for the native index: %d chunks given so far", filled)
            read = 0
            await conn.release_read_memory()
    await conn.query(namespace, _UNMARK, operation="clearing the vector mark", write=True)
    if filled:
        _log.info("gave %d chunk vectors their float copy for the native index", filled)
    return filled
