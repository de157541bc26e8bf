"""SurrealDB's own search indexes on chunks, kept only where they serve search.

Why: the ``FULLTEXT ... BM25`` index on chunk text and the HNSW index on chunk
vectors are what the native retrieval index (``TESSERA_INDEX=surreal``)
queries. With the in-process index (the default) nothing reads them, yet the
engine updates them on every write: replaying the transactions of an import of
the notmuch lkml Maildir (176 messages, 364 chunks) took 2.46 s of wall time
and 0.49 s of CPU with the full-text index and 0.29 s / 0.08 s without it (2
shared cores). So a store opened for the in-process index removes
them, and one opened for the native index defines them (building them from
the chunks already stored, once, if another setting had removed them).

A store is the truth either way: the chunk rows are the same, only SurrealDB's
derived postings and graph differ. Every process that opens one store (or one
server) must agree on the index kind, or each open undoes the other's choice.
"""

from adapters.surreal.connection import SurrealConnection
from adapters.surreal.float_vectors import MARK_PACKED_ONLY, fill_floats

__all__ = ["keep_search_indexes"]

_DEFINE = """
DEFINE INDEX IF NOT EXISTS chunk_text ON chunk FIELDS text FULLTEXT ANALYZER tx BM25;
DEFINE INDEX IF NOT EXISTS chunk_emb ON chunk FIELDS emb
    HNSW DIMENSION {dimension} DIST COSINE TYPE F32;
"""
_REMOVE = f"""
REMOVE INDEX IF EXISTS chunk_text ON chunk;
REMOVE INDEX IF EXISTS chunk_emb ON chunk;
{MARK_PACKED_ONLY}
"""


async def keep_search_indexes(
    conn: SurrealConnection, namespace: str, dimension: int, *, native: bool
) -> None:
    """Define the chunk search indexes when ``native`` search uses them, else remove them
    (and mark that vectors are now written without their float copy: ``float_vectors``)."""
    if native:
        await fill_floats(conn, namespace)  # the HNSW index is then built over every vector
    script = _DEFINE.replace("{dimension}", str(int(dimension))) if native else _REMOVE
    await conn.query(
        namespace,
        script,
        operation="defining the search indexes" if native else "removing the search indexes",
        write=True,
    )
