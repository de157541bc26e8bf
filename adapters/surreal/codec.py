"""Rows <-> records for the SurrealDB adapter, in one place.

Why a hand-written codec: a SCHEMAFULL table silently drops a field it does not
know, and the SDK turns Python ``None`` inside an object into an absent key, so
every field is named here once and round-tripped by the contract suite. Two
further losses are repaired here rather than accepted:

- SurrealDB keeps datetimes in UTC, so the caller's UTC offset is stored beside
  each datetime (``*_tz``, seconds) and put back on the way out;
- metadata mixes ``None``, ints, floats and bools, which a SurrealDB object
  would blur (``None`` vanishes), so it is stored as JSON text.

Each vector is stored as ``vec`` (little-endian float32 bytes), what the adapter
reads back: the SDK decodes a 384-float array ~100x slower than a byte string.
Only a store kept for the native index also stores it as ``emb``
(array<float>), which SurrealDB's HNSW index reads (``float_vectors`` says why).
Decode failures raise; they are never turned into empty results.
"""

import functools
import hashlib
import struct
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import msgspec

from adapters.surreal.lifecycle_codec import (
    LIFECYCLE_FIELDS,
    lifecycle_from,
    lifecycle_from_row,
    lifecycle_row,
)
from application.ports.records import IndexedText, IndexEntry, ScopeRef, Vector
from domain.errors import InvalidInputError, UpstreamError
from domain.lifecycle import RECALL_OPEN
from domain.models import Chunk, MetadataValue, Source, spoken_text
from domain.reasons import ReasonCode
from domain.scopes import LifecycleState, MemoryScope, PrivacyClass, SourceType
from domain.search_filters import source_facets

__all__ = [
    "CACHE_KEY_SQL",
    "CHUNK_FIELDS",
    "ENTRIES_OF_SOURCE",
    "ENTRY_FIELDS",
    "LIFECYCLE_FIELDS",
    "SOURCE_FIELDS",
    "cache_key",
    "cache_key_prefix",
    "chunk_from_row",
    "chunk_row",
    "datetime_from_row",
    "entry_from_row",
    "lifecycle_from",
    "namespace_for",
    "pack_vector",
    "ref_code",
    "source_from_row",
    "source_row",
    "space_code",
    "text_from_row",
    "unpack_vector",
]

_DT_FIELDS = ("created_at", "occurred_at")

SOURCE_FIELDS = (
    "meta::id(id) AS id, org_id, scope, scope_key, source_type, source_uri, version, content, "
    "content_hash, metadata, privacy_class, created_by, created_at, created_tz, occurred_at, "
    "occurred_tz, lifecycle, " + LIFECYCLE_FIELDS
)
CHUNK_FIELDS = (
    "meta::id(id) AS id, source_id, org_id, ordinal, text, span_start, span_end, content_hash, "
    "scope, scope_key, created_at, created_tz, occurred_at, occurred_tz, lifecycle, role, "
    "turn_index, speaker"
)
ENTRY_FIELDS = (
    "meta::id(id) AS id, source_id, text, vec, scope, scope_key, lifecycle, occurred_at, "
    "occurred_tz, role, turn_index, speaker, recall, "
    # the source's type and metadata: the chunk's search-filter facets
    "type::record('source', source_id).{source_type, metadata} AS src"
)

#: one source's index entries, through the ``chunk_source`` index
ENTRIES_OF_SOURCE = f"SELECT {ENTRY_FIELDS} FROM chunk WHERE source_id = $source ORDER BY id;"  # noqa: S608

_metadata_encoder = msgspec.json.Encoder()
_metadata_decoder = msgspec.json.Decoder(dict[str, MetadataValue])


def namespace_for(org_id: str) -> str:
    """The organisation's namespace: ``org_`` + 32 hex digits of sha256(org_id).

    Hashing makes any org id a safe identifier (no quoting, no injection) and
    keeps two ids from ever sharing a namespace.
    """
    if not org_id:
        raise InvalidInputError(ReasonCode.INVALID_REQUEST, "org_id must not be empty")
    return "org_" + hashlib.sha256(org_id.encode("utf-8")).hexdigest()[:32]


def cache_key(model: str, text_hash: str) -> str:
    """Record id of one embedding-cache entry: one id per (model, text hash)."""
    return hashlib.sha256(f"{model}\n{text_hash}".encode()).hexdigest()


#: ``cache_key`` computed in the engine, from ``$key_prefix`` (``cache_key_prefix``) and
#: a text hash in ``$hash``: for a write that reads the hash in its own transaction
CACHE_KEY_SQL = "crypto::sha256(string::concat($key_prefix, $hash))"


def cache_key_prefix(model: str) -> str:
    return f"{model}\n"


def space_code(scope: MemoryScope, scope_key: str | None) -> str:
    """One string per (scope, key) space, so a filter is a single ``IN``.

    Scope names never contain ``/``, so ``team/x`` cannot be confused with a
    keyless scope, and a missing key differs from an empty one.
    """
    return str(scope) if scope_key is None else f"{scope}/{scope_key}"


def ref_code(ref: ScopeRef) -> str:
    return space_code(ref.scope, ref.scope_key)


def pack_vector(vector: Sequence[float]) -> bytes:
    return struct.pack(f"<{len(vector)}f", *vector)


def unpack_vector(packed: bytes) -> Vector:
    if len(packed) % 4:
        raise UpstreamError(ReasonCode.STORE_FAILED, "a stored vector has a truncated length")
    return list(struct.unpack(f"<{len(packed) // 4}f", packed))


def _dt_out(value: datetime) -> tuple[datetime, int]:
    offset = value.utcoffset()
    if offset is None:
        raise InvalidInputError(
            ReasonCode.INVALID_REQUEST, "datetimes must be timezone-aware to be stored"
        )
    return value.astimezone(UTC), int(offset.total_seconds())


def _dt_in(value: Any, offset: Any) -> datetime:
    if not isinstance(value, datetime):
        raise TypeError("expected a datetime")
    # The SDK answers with a datetime subclass carrying nanoseconds; rebuild a plain one.
    utc = datetime(
        value.year,
        value.month,
        value.day,
        value.hour,
        value.minute,
        value.second,
        value.microsecond,
        tzinfo=UTC,
    )
    seconds = int(offset or 0)
    return utc if seconds == 0 else utc.astimezone(timezone(timedelta(seconds=seconds)))


def _put_datetimes(row: dict[str, Any], created_at: datetime, occurred_at: datetime | None) -> None:
    for name, value in zip(_DT_FIELDS, (created_at, occurred_at), strict=True):
        if value is None:
            row[name] = None
            row[name[: -len("_at")] + "_tz"] = None
        else:
            row[name], row[name[: -len("_at")] + "_tz"] = _dt_out(value)


def datetime_from_row(row: Mapping[str, Any], name: str) -> datetime:
    """A stored datetime field with its UTC offset put back (``name`` ends in ``_at``)."""
    return _dt_in(row[name], row.get(name[: -len("_at")] + "_tz"))


def _optional_dt(row: Mapping[str, Any], name: str) -> datetime | None:
    value = row.get(name)
    return None if value is None else _dt_in(value, row.get(name[: -len("_at")] + "_tz"))


def source_row(source: Source) -> dict[str, Any]:
    """The ``source`` table's fields (the record id travels separately)."""
    row: dict[str, Any] = {
        "org_id": source.org_id,
        "scope": str(source.scope),
        "scope_key": source.scope_key,
        "space": space_code(source.scope, source.scope_key),
        "source_type": str(source.source_type),
        "source_uri": source.source_uri,
        "version": source.version,
        "content": source.content,
        "content_hash": source.content_hash,
        "metadata": _metadata_encoder.encode(source.metadata).decode("utf-8"),
        "privacy_class": str(source.privacy_class),
        "created_by": source.created_by,
        "lifecycle": str(source.lifecycle),
        **lifecycle_row(source),
    }
    _put_datetimes(row, source.created_at, source.occurred_at)
    return row


def chunk_row(
    chunk: Chunk, vector: Sequence[float] | None, recall: str, *, floats: bool = True
) -> dict[str, Any]:
    """An ``INSERT`` row for the ``chunk`` table, id included; ``recall`` is its recall key.

    Without a vector the chunk is saved pending (``embed_state``): the embedding lane
    gives it one later. The SDK drops a None value, so the vector fields stay absent.
    ``floats``: the vector as ``emb`` too (for SurrealDB's own HNSW index).
    """
    row: dict[str, Any] = {
        "id": chunk.chunk_id,
        "source_id": chunk.source_id,
        "org_id": chunk.org_id,
        "ordinal": chunk.ordinal,
        "text": chunk.text,
        "span_start": chunk.start,
        "span_end": chunk.end,
        "content_hash": chunk.content_hash,
        "scope": str(chunk.scope),
        "scope_key": chunk.scope_key,
        "space": space_code(chunk.scope, chunk.scope_key),
        "lifecycle": str(chunk.lifecycle),
        "recall": recall,
        "role": chunk.role,
        "turn_index": chunk.turn_index,
        "speaker": chunk.speaker,
    }
    if vector is None:
        row["embed_state"] = "pending"
        row["embed_attempts"] = 0
    else:
        if floats:
            row["emb"] = [float(x) for x in vector]
        row["vec"] = pack_vector(vector)
    _put_datetimes(row, chunk.created_at, chunk.occurred_at)
    return row


def _decode_failure(kind: str, exc: Exception) -> UpstreamError:
    return UpstreamError(
        ReasonCode.STORE_FAILED, f"a stored {kind} row could not be decoded ({type(exc).__name__})"
    )


def source_from_row(row: Mapping[str, Any]) -> Source:
    try:
        return Source(
            source_id=str(row["id"]),
            org_id=row["org_id"],
            scope=MemoryScope(row["scope"]),
            scope_key=row.get("scope_key"),
            source_type=SourceType(row["source_type"]),
            source_uri=row.get("source_uri"),
            version=row["version"],
            content=row["content"],
            content_hash=row["content_hash"],
            metadata=_metadata_decoder.decode(row["metadata"]),
            privacy_class=PrivacyClass(row["privacy_class"]),
            created_by=row["created_by"],
            created_at=_dt_in(row["created_at"], row.get("created_tz")),
            occurred_at=_optional_dt(row, "occurred_at"),
            lifecycle=LifecycleState(row["lifecycle"]),
            **lifecycle_from_row(row),
        )
    except (KeyError, TypeError, ValueError, msgspec.DecodeError) as exc:
        raise _decode_failure("source", exc) from exc


def chunk_from_row(row: Mapping[str, Any]) -> Chunk:
    try:
        return Chunk(
            chunk_id=str(row["id"]),
            source_id=row["source_id"],
            org_id=row["org_id"],
            ordinal=row["ordinal"],
            text=row["text"],
            start=row["span_start"],
            end=row["span_end"],
            content_hash=row["content_hash"],
            scope=MemoryScope(row["scope"]),
            scope_key=row.get("scope_key"),
            created_at=_dt_in(row["created_at"], row.get("created_tz")),
            occurred_at=_optional_dt(row, "occurred_at"),
            lifecycle=LifecycleState(row["lifecycle"]),
            role=row.get("role"),
            turn_index=row.get("turn_index"),
            speaker=row.get("speaker"),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise _decode_failure("chunk", exc) from exc


def entry_from_row(row: Mapping[str, Any]) -> IndexEntry:
    try:
        return IndexEntry(
            chunk_id=str(row["id"]),
            source_id=row["source_id"],
            text=row["text"],
            vector=None if row.get("vec") is None else unpack_vector(row["vec"]),
            scope=MemoryScope(row["scope"]),
            scope_key=row.get("scope_key"),
            lifecycle=LifecycleState(row["lifecycle"]),
            occurred_at=_optional_dt(row, "occurred_at"),
            role=row.get("role"),
            turn_index=row.get("turn_index"),
            speaker=row.get("speaker"),
            recall=row.get("recall") or RECALL_OPEN,
            facets=_facets_of(row.get("src")),
        )
    except (KeyError, TypeError, ValueError, struct.error, msgspec.DecodeError) as exc:
        raise _decode_failure("chunk", exc) from exc


def _facets_of(src: Mapping[str, Any] | None) -> frozenset[str]:
    """A chunk's filter facets from its source's type and metadata (none without a source)."""
    if not src:
        return frozenset()
    return _facets(src["source_type"], src["metadata"])


@functools.lru_cache(maxsize=1024)
def _facets(source_type: str, metadata: str) -> frozenset[str]:
    """Cached: a rebuild reads every chunk, and a source's chunks share its facets."""
    return source_facets(SourceType(source_type), _metadata_decoder.decode(metadata))


def text_from_row(row: Mapping[str, Any]) -> IndexedText:
    try:
        return IndexedText(
            chunk_id=str(row["id"]),
            source_id=row["source_id"],
            text=spoken_text(row["text"], row.get("speaker")),
            role=row.get("role"),
            turn_index=row.get("turn_index"),
            occurred_at=_optional_dt(row, "occurred_at"),
            speaker=row.get("speaker"),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise _decode_failure("chunk", exc) from exc
