"""Versioned, idempotent schema migrations, applied per organisation namespace.

Why versioned: every organisation lives in its own namespace and is prepared
on first use, possibly by a newer release than the one that created it; the
``migration`` table records which numbered scripts a namespace has run, so a
new release appends a script instead of editing one. Scripts must stay
idempotent (``IF NOT EXISTS``), because two processes talking to one server
may prepare the same organisation at once.

Why the embedding space is recorded first: the HNSW index is built for one
dimension, and vectors of two models must never be mixed, so ``prepare``
refuses a different space before any DDL runs.
"""

from collections.abc import Awaitable, Callable
from typing import Any

import msgspec

from adapters.surreal.connection import SurrealConnection
from adapters.surreal.withheld import backfill_rows
from application.memory.checks import embedder_mismatch
from application.ports.records import EmbeddingSpace
from domain.errors import UpstreamError
from domain.lifecycle import RECALL_OPEN
from domain.reasons import ReasonCode

__all__ = ["MIGRATIONS", "Migration", "load_space", "migrate"]


#: reads what a migration must compute in Python; answers rows for its ``$backfill``
Backfill = Callable[[SurrealConnection, str], Awaitable[list[dict[str, Any]]]]


class Migration(msgspec.Struct, frozen=True, kw_only=True):
    version: int
    name: str
    #: SurrealQL; ``{dimension}`` is replaced by the organisation's vector dimension
    script: str
    #: values SurrealQL cannot compute, read before the script and passed to it as
    #: ``$backfill``, so the script writes them in its own transaction
    backfill: Backfill | None = None


_BOOTSTRAP = """
DEFINE TABLE IF NOT EXISTS migration SCHEMAFULL;
DEFINE FIELD IF NOT EXISTS version ON migration TYPE int;
DEFINE FIELD IF NOT EXISTS name ON migration TYPE string;
DEFINE FIELD IF NOT EXISTS applied_at ON migration TYPE datetime;
DEFINE TABLE IF NOT EXISTS meta SCHEMAFULL;
DEFINE FIELD IF NOT EXISTS model ON meta TYPE option<string>;
DEFINE FIELD IF NOT EXISTS dimension ON meta TYPE option<int>;
DEFINE FIELD IF NOT EXISTS org_id ON meta TYPE option<string>;
"""

_V1 = """
DEFINE ANALYZER IF NOT EXISTS tx TOKENIZERS class FILTERS lowercase, snowball(english);

DEFINE TABLE IF NOT EXISTS source SCHEMAFULL;
DEFINE FIELD IF NOT EXISTS org_id ON source TYPE string;
DEFINE FIELD IF NOT EXISTS scope ON source TYPE string;
DEFINE FIELD IF NOT EXISTS scope_key ON source TYPE option<string>;
DEFINE FIELD IF NOT EXISTS space ON source TYPE string;
DEFINE FIELD IF NOT EXISTS source_type ON source TYPE string;
DEFINE FIELD IF NOT EXISTS source_uri ON source TYPE option<string>;
DEFINE FIELD IF NOT EXISTS version ON source TYPE int;
DEFINE FIELD IF NOT EXISTS content ON source TYPE string;
DEFINE FIELD IF NOT EXISTS content_hash ON source TYPE string;
DEFINE FIELD IF NOT EXISTS metadata ON source TYPE string;
DEFINE FIELD IF NOT EXISTS privacy_class ON source TYPE string;
DEFINE FIELD IF NOT EXISTS created_by ON source TYPE string;
DEFINE FIELD IF NOT EXISTS created_at ON source TYPE datetime;
DEFINE FIELD IF NOT EXISTS created_tz ON source TYPE int;
DEFINE FIELD IF NOT EXISTS occurred_at ON source TYPE option<datetime>;
DEFINE FIELD IF NOT EXISTS occurred_tz ON source TYPE option<int>;
DEFINE FIELD IF NOT EXISTS lifecycle ON source TYPE string;

DEFINE TABLE IF NOT EXISTS chunk SCHEMAFULL;
DEFINE FIELD IF NOT EXISTS source_id ON chunk TYPE string;
DEFINE FIELD IF NOT EXISTS org_id ON chunk TYPE string;
DEFINE FIELD IF NOT EXISTS ordinal ON chunk TYPE int;
DEFINE FIELD IF NOT EXISTS text ON chunk TYPE string;
DEFINE FIELD IF NOT EXISTS span_start ON chunk TYPE int;
DEFINE FIELD IF NOT EXISTS span_end ON chunk TYPE int;
DEFINE FIELD IF NOT EXISTS content_hash ON chunk TYPE string;
DEFINE FIELD IF NOT EXISTS scope ON chunk TYPE string;
DEFINE FIELD IF NOT EXISTS scope_key ON chunk TYPE option<string>;
DEFINE FIELD IF NOT EXISTS space ON chunk TYPE string;
DEFINE FIELD IF NOT EXISTS created_at ON chunk TYPE datetime;
DEFINE FIELD IF NOT EXISTS created_tz ON chunk TYPE int;
DEFINE FIELD IF NOT EXISTS occurred_at ON chunk TYPE option<datetime>;
DEFINE FIELD IF NOT EXISTS occurred_tz ON chunk TYPE option<int>;
DEFINE FIELD IF NOT EXISTS lifecycle ON chunk TYPE string;
DEFINE FIELD IF NOT EXISTS emb ON chunk TYPE array<float>;
DEFINE FIELD IF NOT EXISTS vec ON chunk TYPE bytes;
DEFINE INDEX IF NOT EXISTS chunk_source ON chunk FIELDS source_id;
DEFINE INDEX IF NOT EXISTS chunk_text ON chunk FIELDS text FULLTEXT ANALYZER tx BM25;
DEFINE INDEX IF NOT EXISTS chunk_emb ON chunk FIELDS emb
    HNSW DIMENSION {dimension} DIST COSINE TYPE F32;

DEFINE TABLE IF NOT EXISTS embedding_cache SCHEMAFULL;
DEFINE FIELD IF NOT EXISTS model ON embedding_cache TYPE string;
DEFINE FIELD IF NOT EXISTS hash ON embedding_cache TYPE string;
DEFINE FIELD IF NOT EXISTS vec ON embedding_cache TYPE bytes;
"""

# Conversation turns: a chunk may be a turn of an episode (its source).
_V2_TURNS = """
DEFINE FIELD IF NOT EXISTS role ON chunk TYPE option<string>;
DEFINE FIELD IF NOT EXISTS turn_index ON chunk TYPE option<int>;
"""

# Speakers: a turn may name who said it ("Maya"), beside its role.
_V3_SPEAKERS = """
DEFINE FIELD IF NOT EXISTS speaker ON chunk TYPE option<string>;
"""

# Corrections: a source's marks, links and history; each chunk's recall key.
# Rows written before have no recall key: nothing could correct them, so they are open.
_V4_CORRECTIONS = """
DEFINE FIELD IF NOT EXISTS marks ON source TYPE option<array<string>>;
DEFINE FIELD IF NOT EXISTS superseded_by ON source TYPE option<string>;
DEFINE FIELD IF NOT EXISTS duplicate_of ON source TYPE option<string>;
DEFINE FIELD IF NOT EXISTS corrections ON source TYPE option<string>;
DEFINE FIELD IF NOT EXISTS recall ON chunk TYPE option<string>;
DEFINE INDEX IF NOT EXISTS chunk_hash ON chunk FIELDS content_hash;
UPDATE chunk SET recall = '{open}' WHERE recall IS NONE RETURN NONE;
"""

# Withheld redactions: a pack lists the redacted sources of the caller's spaces.
_V5_REDACTED = """
DEFINE INDEX IF NOT EXISTS source_lifecycle ON source FIELDS lifecycle, space;
"""

# Withheld words: each redacted source's remainder as folded words, one row per
# word, so a search looks its query words up instead of reading every redaction.
_V6_WITHHELD_TERMS = """
DEFINE TABLE IF NOT EXISTS withheld_term SCHEMAFULL;
DEFINE FIELD IF NOT EXISTS term ON withheld_term TYPE string;
DEFINE FIELD IF NOT EXISTS space ON withheld_term TYPE string;
DEFINE FIELD IF NOT EXISTS source_id ON withheld_term TYPE string;
DEFINE INDEX IF NOT EXISTS withheld_term_term ON withheld_term FIELDS term;
DEFINE INDEX IF NOT EXISTS withheld_term_source ON withheld_term FIELDS source_id;
DELETE withheld_term RETURN NONE;
INSERT INTO withheld_term $backfill RETURN NONE;
"""


# The embedding lane: a chunk may be saved before its vector. ``embed_state`` is
# 'pending' or 'failed' (the dead letter) while it has none, NONE once indexed (rows written
# before all have vectors); the state is the durable queue a restart resumes.
_V7_EMBEDDING_LANE = """
DEFINE FIELD OVERWRITE emb ON chunk TYPE option<array<float>>;
DEFINE FIELD OVERWRITE vec ON chunk TYPE option<bytes>;
DEFINE FIELD IF NOT EXISTS embed_state ON chunk TYPE option<string>;
DEFINE FIELD IF NOT EXISTS embed_attempts ON chunk TYPE option<int>;
DEFINE INDEX IF NOT EXISTS chunk_embed_state ON chunk FIELDS embed_state;
"""

# The change sequence: each index-visible write advances ``change_head:org`` and
# stamps the sources it changed, so a derived index restored from a snapshot reads only the
# sources changed since. ``epoch`` names this life of the sequence (a dropped and recreated
# organisation gets another). Rows written before have no stamp: no snapshot predates v8.
_V8_CHANGE_SEQUENCE = """
DEFINE FIELD IF NOT EXISTS changed ON source TYPE option<int>;
DEFINE INDEX IF NOT EXISTS source_changed ON source FIELDS changed;
DEFINE TABLE IF NOT EXISTS change_head SCHEMAFULL;
DEFINE FIELD IF NOT EXISTS sequence ON change_head TYPE int;
DEFINE FIELD IF NOT EXISTS epoch ON change_head TYPE string;
UPSERT change_head:org SET sequence = sequence OR 0, epoch = epoch OR <string> rand::uuid::v4()
    RETURN NONE;
"""

# Re-embedding: a second model's vectors, staged beside the served ones by chunk
# id until ``tessera reembed`` switches the organisation to them; the run's saved progress.
_V9_REEMBED = """
DEFINE TABLE IF NOT EXISTS staged_vector SCHEMAFULL;
DEFINE FIELD IF NOT EXISTS model ON staged_vector TYPE string;
DEFINE FIELD IF NOT EXISTS source_id ON staged_vector TYPE string;
DEFINE FIELD IF NOT EXISTS emb ON staged_vector TYPE array<float>;
DEFINE FIELD IF NOT EXISTS vec ON staged_vector TYPE bytes;
DEFINE INDEX IF NOT EXISTS staged_vector_source ON staged_vector FIELDS source_id;
DEFINE INDEX IF NOT EXISTS staged_vector_model ON staged_vector FIELDS model;
DEFINE TABLE IF NOT EXISTS reembed_job SCHEMAFULL;
DEFINE FIELD IF NOT EXISTS body ON reembed_job TYPE string;
"""

# Vectors kept once: a store opened for the in-process index writes a chunk's vector as
# ``vec`` only, and says so in ``meta:vectors``, so that opening it for the native index
# first gives those rows their ``emb`` copy (``float_vectors``).
_V10_PACKED_ONLY = """
DEFINE FIELD IF NOT EXISTS packed_only ON meta TYPE option<bool>;
"""

_RECORD_ORG = """
UPSERT meta:org SET org_id = $org RETURN NONE;
SELECT model, dimension FROM meta:embedding;
"""
_PREPARE = _BOOTSTRAP + _RECORD_ORG

MIGRATIONS: tuple[Migration, ...] = (
    Migration(version=1, name="sources, chunks, embedding cache", script=_V1),
    Migration(version=2, name="conversation turns: chunk role and turn index", script=_V2_TURNS),
    Migration(version=3, name="speakers: a turn's speaker by name", script=_V3_SPEAKERS),
    Migration(
        version=4, name="corrections: marks, links, history, recall keys", script=_V4_CORRECTIONS
    ),
    Migration(version=5, name="redacted sources by space", script=_V5_REDACTED),
    Migration(
        version=6,
        name="withheld terms: a redaction's remainder as folded words",
        script=_V6_WITHHELD_TERMS,
        backfill=backfill_rows,
    ),
    Migration(
        version=7,
        name="embedding lane: pending vectors, state, attempts",
        script=_V7_EMBEDDING_LANE,
    ),
    Migration(
        version=8,
        name="change sequence: a head per organisation, each source's latest change",
        script=_V8_CHANGE_SEQUENCE,
    ),
    Migration(
        version=9,
        name="re-embedding: staged vectors of the next model, the run's progress",
        script=_V9_REEMBED,
    ),
    Migration(
        version=10,
        name="vectors kept once: whether chunks may lack the float copy",
        script=_V10_PACKED_ONLY,
    ),
)


def _space_of(row: Any) -> EmbeddingSpace | None:
    if not row:
        return None
    record = row[0] if isinstance(row, list) else row
    try:
        return EmbeddingSpace(model=record["model"], dimension=int(record["dimension"]))
    except (KeyError, TypeError, ValueError) as exc:
        raise UpstreamError(
            ReasonCode.STORE_FAILED, "the stored embedding space could not be decoded"
        ) from exc


async def load_space(conn: SurrealConnection, namespace: str) -> EmbeddingSpace | None:
    """The embedding space recorded in a namespace, or None if it was never prepared.

    A namespace can exist unprepared: an organisation's audit receipts are written
    there before it remembers anything, and selecting from the missing ``meta``
    table is an error on SurrealDB 3, not an empty answer.
    """
    (info,) = await conn.query(namespace, "INFO FOR DB;", operation="reading the schema")
    if "meta" not in (info or {}).get("tables", {}):
        return None
    (row,) = await conn.query(
        namespace, "SELECT model, dimension FROM meta:embedding;", operation="reading the schema"
    )
    return _space_of(row)


async def _record_space(
    conn: SurrealConnection, namespace: str, org_id: str, space: EmbeddingSpace
) -> EmbeddingSpace:
    results = await conn.query(
        namespace,
        _PREPARE,
        {"org": org_id},
        operation="preparing the organisation",
        write=True,
    )
    held = _space_of(results[-1])
    if held is None:
        try:
            await conn.query(
                namespace,
                "CREATE meta:embedding SET model = $model, dimension = $dim RETURN NONE;",
                {"model": space.model, "dim": space.dimension},
                operation="recording the embedding space",
                write=True,
            )
        except UpstreamError:
            # Another process may have recorded a space between our read and this write.
            held = await load_space(conn, namespace)
            if held is None:
                raise
        else:
            held = space
    if held != space:
        raise embedder_mismatch(org_id, held, space)
    return held


async def migrate(
    conn: SurrealConnection, namespace: str, org_id: str, space: EmbeddingSpace
) -> None:
    """Record (or check) the space, then apply the migrations this namespace lacks."""
    held = await _record_space(conn, namespace, org_id, space)
    (applied,) = await conn.query(
        namespace, "SELECT VALUE version FROM migration;", operation="reading migrations"
    )
    done = {int(v) for v in applied or []}
    for migration in MIGRATIONS:
        if migration.version in done:
            continue
        script = migration.script.replace("{dimension}", str(int(held.dimension))).replace(
            "{open}", RECALL_OPEN
        )
        variables: dict[str, Any] = {"version": migration.version, "name": migration.name}
        if migration.backfill is not None:
            variables["backfill"] = await migration.backfill(conn, namespace)
        # the only backfill writes withheld words: no search marks the namespace meanwhile
        with conn.withheld.writing(namespace, adds=migration.backfill is not None):
            await conn.query(
                namespace,
                "BEGIN TRANSACTION;\n"
                + script
                + "\nUPSERT type::record('migration', $version) SET version = $version,"
                " name = $name, applied_at = time::now() RETURN NONE;\nCOMMIT TRANSACTION;",
                variables,
                operation=f"applying schema migration {migration.version}",
                write=True,
            )
