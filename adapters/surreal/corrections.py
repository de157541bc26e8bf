"""Corrections on SurrealDB: a source's new state, its chunks and its withheld words, at once.

Why a version check inside the transaction: a preview token is bound to the
version the caller saw; a correction applied by someone else in between must
refuse this one, not silently stack on top of it.
"""

from collections.abc import Sequence
from typing import Any

from surrealdb import RecordID

from adapters.surreal import change_log, codec
from adapters.surreal.change_log import stamped
from adapters.surreal.connection import SurrealConnection
from adapters.surreal.withheld import REFRESH_WITHHELD, withheld_rows
from application.ports.records import EmbeddingSpace
from domain.models import Chunk, Source

__all__ = ["DROP_STAGED", "linked_sources", "update_source"]

#: one transaction: the source only if it is still at the version the caller read, then
#: its chunks (<CHUNKS>); a changed source throws and nothing is written
_UPDATE_SOURCE = """BEGIN TRANSACTION;
LET $hit = (UPDATE $sid CONTENT $source WHERE version = $expected RETURN VALUE version);
IF array::len($hit) = 0 { THROW "source_changed" };
<WITHHELD>
<CHUNKS>
<STAMP>
COMMIT TRANSACTION;"""
_SET_CHUNKS = (
    "UPDATE chunk SET lifecycle = $lifecycle, recall = $recall "
    "WHERE source_id = $source_id RETURN NONE;"
)
#: chunk rows go, and the cached embeddings of their texts that no other chunk uses
_DROP_TEXT = (
    "DELETE chunk WHERE source_id = $source_id RETURN NONE;\n"
    "LET $used = (SELECT VALUE content_hash FROM chunk WHERE content_hash IN $hashes);\n"
    "DELETE $cache WHERE hash NOTINSIDE $used RETURN NONE;\n<DROP_STAGED>"
)
#: a re-embed's staged vectors of the text go with it (adapters/surreal/vector_staging.py;
#: schema v9)
DROP_STAGED = "DELETE staged_vector WHERE source_id = $source_id RETURN NONE;"


async def update_source(
    conn: SurrealConnection,
    namespace: str,
    space: EmbeddingSpace,
    source: Source,
    expected_version: int,
    drop_text: bool,
    chunks: Sequence[Chunk],
) -> None:
    """Raises UpstreamError when the stored version is not ``expected_version``."""
    hashes = sorted({c.content_hash for c in chunks})
    variables: dict[str, Any] = {
        "sid": RecordID("source", source.source_id),
        "source": codec.source_row(source),
        "source_id": source.source_id,
        "expected": int(expected_version),
        "lifecycle": str(source.lifecycle),
        "recall": source.recall,
        "hashes": hashes,
        "cache": [RecordID("embedding_cache", codec.cache_key(space.model, h)) for h in hashes],
        "withheld": withheld_rows(source),
        **stamped([source.source_id]),
    }
    chunks_sql = _DROP_TEXT.replace("<DROP_STAGED>", DROP_STAGED) if drop_text else _SET_CHUNKS
    # a redaction adds withheld words: no search marks the namespace meanwhile
    with conn.withheld.writing(namespace, adds=bool(variables["withheld"])):
        await conn.query(
            namespace,
            _UPDATE_SOURCE.replace("<CHUNKS>", chunks_sql)
            .replace("<WITHHELD>", REFRESH_WITHHELD)
            .replace("<STAMP>", change_log.ADVANCE + "\n" + change_log.STAMP),
            variables,
            operation="correcting a source",
            write=True,
        )


async def linked_sources(conn: SurrealConnection, namespace: str, source_id: str) -> list[str]:
    (rows,) = await conn.query(
        namespace,
        "SELECT VALUE meta::id(id) FROM source WHERE superseded_by = $id "
        "OR duplicate_of = $id ORDER BY id;",
        {"id": source_id},
        operation="listing linked sources",
    )
    return sorted(str(r) for r in rows or [])
