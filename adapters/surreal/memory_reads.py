"""The MemoryStore port's reads on SurrealDB: sources, chunks, lifecycles, index rows, cache.

Split from the writes (``memory_store``) so each half stays readable. Every
query is built once from constant field lists, and every value travels as a
variable. A read never decodes more than it returns: the lifecycle reads and
the redaction match select no text.
"""

from collections.abc import Sequence
from typing import Any

from surrealdb import RecordID

from adapters.surreal import codec, corrections
from adapters.surreal.connection import RELEASE_SCANNED_EVERY
from adapters.surreal.store_base import SurrealStoreBase
from application.ports.records import IndexEntry, SourceLifecycle, SourceState, Vector
from domain.models import Chunk, Source
from domain.scopes import LifecycleState, ScopeRef

__all__ = ["RELEASE_SCANNED_EVERY", "SurrealMemoryReads"]

_GET_SOURCE = f"SELECT {codec.SOURCE_FIELDS} FROM $sid;"  # noqa: S608
_GET_CHUNKS = f"SELECT {codec.CHUNK_FIELDS} FROM $ids;"  # noqa: S608
_CHUNKS_OF_SOURCE = (
    f"SELECT {codec.CHUNK_FIELDS} FROM chunk WHERE source_id = $source "  # noqa: S608
    "ORDER BY ordinal;"
)
_SCAN_FIRST = f"SELECT {codec.ENTRY_FIELDS} FROM chunk ORDER BY id LIMIT $limit;"  # noqa: S608
_SCAN_AFTER = (
    f"SELECT {codec.ENTRY_FIELDS} FROM chunk WHERE id > $after "  # noqa: S608
    "ORDER BY id LIMIT $limit;"
)
# pages by the chunk_source index: each page seeks to its first key, where a chunk-id
# cursor (_SCAN_AFTER) made the engine walk the table from its start on every page, which
# made a rebuild quadratic in the chunks (benchmarks/RESULTS.md)
_SCAN_SOURCES = (
    f"SELECT {codec.ENTRY_FIELDS} FROM chunk WHERE source_id > $after "  # noqa: S608
    "ORDER BY source_id LIMIT $limit;"
)
_LIST_FIRST = f"SELECT {codec.SOURCE_FIELDS} FROM source ORDER BY id LIMIT $limit;"  # noqa: S608
_LIST_AFTER = (
    f"SELECT {codec.SOURCE_FIELDS} FROM source WHERE id > $after "  # noqa: S608
    "ORDER BY id LIMIT $limit;"
)
_LIFECYCLE_OF = (
    "meta::id(id) AS id, scope, scope_key, lifecycle, created_by, marks, superseded_by, "
    "duplicate_of"
)
#: each lifecycle as a list of its values in ``_LIFECYCLE_KEYS`` order: no field name to
#: decode in every row (the client's CBOR decoder is pure Python; 67 rows, a derived
#: search's gate: 3.2-3.5 CPU-ms as maps, 2.4-2.6 as lists, ad hoc)
_LIFECYCLE_KEYS = (
    "id", "scope", "scope_key", "lifecycle", "created_by", "marks", "superseded_by",
    "duplicate_of",
)  # fmt: skip
_LIFECYCLE_VALUES = (
    "meta::id(id), scope, scope_key, lifecycle, created_by, marks, superseded_by, duplicate_of"
)
_LIFECYCLES = f"SELECT VALUE [{_LIFECYCLE_VALUES}] FROM $ids;"  # noqa: S608
#: the query's words looked up in the redactions' words (``withheld``); no text is read
_REDACTED = (
    "LET $hits = (SELECT VALUE type::record('source', source_id) FROM withheld_term "  # noqa: S608
    "WHERE term IN $terms<SPACES>);\n"
    f"SELECT {_LIFECYCLE_OF} FROM array::distinct($hits) "
    "WHERE lifecycle = 'redacted' ORDER BY id LIMIT $limit;"
)
#: the newest active sources (a wake pack's fallback); the (lifecycle, space) index narrows
_RECENT = (
    f"SELECT {_LIFECYCLE_OF} FROM source WHERE lifecycle = 'active'<SPACES> "  # noqa: S608
    "ORDER BY id DESC LIMIT $limit;"
)
_RECENT_ANYWHERE = _RECENT.replace("<SPACES>", "")
_RECENT_IN = _RECENT.replace("<SPACES>", " AND space IN $spaces")
_REDACTED_ANYWHERE = _REDACTED.replace("<SPACES>", "")
#: whether the namespace holds any redacted source's words at all (``withheld_presence``)
_ANY_WITHHELD = "\nSELECT VALUE id FROM withheld_term LIMIT 1;"
_REDACTED_IN = _REDACTED.replace("<SPACES>", " AND space IN $spaces")
#: a chunk's fields as ``codec.CHUNK_FIELDS`` names them, in its order
_CHUNK_KEYS = tuple(f.rsplit(" AS ", 1)[-1] for f in codec.CHUNK_FIELDS.split(", "))
_CHUNK_VALUES = ", ".join(f.split(" AS ", 1)[0] for f in codec.CHUNK_FIELDS.split(", "))
_SOURCE_AT = _CHUNK_KEYS.index("source_id")
#: a search's re-read of its shown chunks with their sources' lifecycles, each row a list
#: of values (no field name decoded per row, as ``_LIFECYCLES``): 10 chunks at 1M, ~0.5
#: CPU-ms less a search than maps (benchmarks/RESULTS.md)
_CHUNKS_WITH_SOURCES = (
    f"LET $c = (SELECT VALUE [{_CHUNK_VALUES}] FROM $ids);\n"  # noqa: S608
    f"RETURN [$c, (SELECT VALUE [{_LIFECYCLE_VALUES}] FROM array::distinct("
    f"array::map($c, |$r| type::record('source', $r[{_SOURCE_AT}]))))];"
)


class SurrealMemoryReads(SurrealStoreBase):
    """What the store answers; ``SurrealMemoryStore`` adds the writes."""

    async def get_source(self, org_id: str, source_id: str) -> Source | None:
        namespace = await self._readable(org_id)
        if namespace is None:
            return None
        (rows,) = await self._conn.query(
            namespace,
            _GET_SOURCE,
            {"sid": RecordID("source", source_id)},
            operation="reading a source",
        )
        return codec.source_from_row(rows[0]) if rows else None

    async def get_sources(self, org_id: str, source_ids: Sequence[str]) -> dict[str, Source]:
        rows = await self._select_ids(
            org_id,
            _GET_SOURCE.replace("$sid", "$ids"),
            "source",
            source_ids,
            operation="reading sources",
        )
        found = (codec.source_from_row(row) for row in rows)
        return {s.source_id: s for s in found}

    async def chunks_with_sources(
        self, org_id: str, chunk_ids: Sequence[str]
    ) -> tuple[dict[str, Chunk], dict[str, SourceLifecycle]]:
        wanted = list(dict.fromkeys(chunk_ids))
        namespace = await self._readable(org_id) if wanted else None
        if namespace is None:
            return {}, {}
        *_, answer = await self._conn.query(
            namespace,
            _CHUNKS_WITH_SOURCES,
            {"ids": [RecordID("chunk", key) for key in wanted]},
            operation="reading chunks and their sources",
        )
        chunk_rows, source_rows = answer
        chunks = (
            codec.chunk_from_row(dict(zip(_CHUNK_KEYS, row, strict=True)))
            for row in chunk_rows or []
        )
        sources = (
            codec.lifecycle_from(dict(zip(_LIFECYCLE_KEYS, row, strict=True)))
            for row in source_rows or []
        )
        return {c.chunk_id: c for c in chunks}, {s.source_id: s for s in sources}

    async def source_lifecycles(
        self, org_id: str, source_ids: Sequence[str]
    ) -> dict[str, SourceLifecycle]:
        rows = await self._select_ids(
            org_id, _LIFECYCLES, "source", source_ids, operation="reading source lifecycles"
        )
        found = (codec.lifecycle_from(dict(zip(_LIFECYCLE_KEYS, row, strict=True))) for row in rows)
        return {s.source_id: s for s in found}

    async def list_sources(self, org_id: str, after: str | None, limit: int) -> list[Source]:
        namespace = await self._readable(org_id)
        if namespace is None or limit < 1:
            return []
        sql, variables = _LIST_FIRST, dict[str, Any]({"limit": int(limit)})
        if after is not None:
            sql, variables = _LIST_AFTER, {**variables, "after": RecordID("source", after)}
        (rows,) = await self._conn.query(namespace, sql, variables, operation="listing sources")
        return [codec.source_from_row(row) for row in rows or []]

    async def linked_sources(self, org_id: str, source_id: str) -> list[str]:
        namespace = await self._readable(org_id)
        if namespace is None:
            return []
        return await corrections.linked_sources(self._conn, namespace, source_id)

    async def get_chunks(self, org_id: str, chunk_ids: Sequence[str]) -> dict[str, Chunk]:
        rows = await self._select_ids(
            org_id, _GET_CHUNKS, "chunk", chunk_ids, operation="reading chunks"
        )
        chunks = (codec.chunk_from_row(row) for row in rows)
        return {c.chunk_id: c for c in chunks}

    async def chunks_of_source(self, org_id: str, source_id: str) -> list[Chunk]:
        namespace = await self._readable(org_id)
        if namespace is None:
            return []
        (rows,) = await self._conn.query(
            namespace,
            _CHUNKS_OF_SOURCE,
            {"source": source_id},
            operation="listing a source's chunks",
        )
        return [codec.chunk_from_row(row) for row in rows or []]

    async def count_chunks(self, org_id: str) -> int:
        namespace = await self._readable(org_id)
        if namespace is None:
            return 0
        (rows,) = await self._conn.query(
            namespace, "SELECT count() AS n FROM chunk GROUP ALL;", operation="counting chunks"
        )
        return int(rows[0]["n"]) if rows else 0

    async def count_sources(self, org_id: str) -> int:
        namespace = await self._readable(org_id)
        if namespace is None:
            return 0
        (rows,) = await self._conn.query(
            namespace, "SELECT count() AS n FROM source GROUP ALL;", operation="counting sources"
        )
        return int(rows[0]["n"]) if rows else 0

    async def source_states(self, org_id: str, space: ScopeRef, limit: int) -> list[SourceState]:
        namespace = await self._readable(org_id)
        if namespace is None or limit < 1:
            return []
        (rows,) = await self._conn.query(
            namespace,
            "SELECT meta::id(id) AS id, lifecycle FROM source WHERE space = $space "
            "ORDER BY id LIMIT $limit;",
            {"space": codec.ref_code(space), "limit": int(limit)},
            operation="listing a space's sources",
        )
        return [SourceState(row["id"], LifecycleState(row["lifecycle"])) for row in rows or []]

    async def recent_sources(
        self, org_id: str, visible: frozenset[ScopeRef] | None, limit: int
    ) -> list[SourceLifecycle]:
        if limit < 1 or (visible is not None and not visible):
            return []
        namespace = await self._readable(org_id)
        if namespace is None:
            return []
        spaces = None if visible is None else sorted(codec.ref_code(r) for r in visible)
        (rows,) = await self._conn.query(
            namespace,
            _RECENT_ANYWHERE if spaces is None else _RECENT_IN,
            {"spaces": spaces or [], "limit": int(limit)},
            operation="listing recent sources",
        )
        return [codec.lifecycle_from(row) for row in rows or []]

    async def redacted_sources(
        self,
        org_id: str,
        visible: frozenset[ScopeRef] | None,
        terms: frozenset[str],
        limit: int,
    ) -> list[SourceLifecycle]:
        if limit < 1 or not terms or (visible is not None and not visible):
            return []
        namespace = await self._readable(org_id)
        if namespace is None or self._conn.withheld.known_none(namespace):
            return []
        spaces = None if visible is None else sorted(codec.ref_code(r) for r in visible)
        token = self._conn.withheld.reading(namespace)
        *_, rows, anywhere = await self._conn.query(
            namespace,
            (_REDACTED_ANYWHERE if spaces is None else _REDACTED_IN) + _ANY_WITHHELD,
            {"spaces": spaces or [], "terms": sorted(terms), "limit": int(limit)},
            operation="matching redacted sources",
        )
        if not anywhere:
            self._conn.withheld.read_none(namespace, token)
        return [codec.lifecycle_from(row) for row in rows or []]

    async def scan_index_entries(
        self, org_id: str, after: str | None, limit: int
    ) -> list[IndexEntry]:
        _, entries = await self._scan(
            org_id,
            limit,
            _SCAN_FIRST if after is None else _SCAN_AFTER,
            {"limit": int(limit)}
            if after is None
            else {"after": RecordID("chunk", after), "limit": int(limit)},
        )
        return entries

    async def scan_index_sources(
        self, org_id: str, after: str | None, limit: int
    ) -> list[IndexEntry]:
        namespace, entries = await self._scan(
            org_id,
            limit,
            _SCAN_SOURCES,
            {"after": after or "", "limit": int(limit)},  # every source id is non-empty
        )
        if namespace is not None and len(entries) >= limit:
            # the page may have cut its last source short: that source is read whole
            last = entries[-1].source_id
            _, whole = await self._scan(org_id, limit, codec.ENTRIES_OF_SOURCE, {"source": last})
            entries = [e for e in entries if e.source_id != last] + whole
        entries.sort(key=lambda e: (e.source_id, e.chunk_id))
        await self._scanned(len(entries))
        return entries

    async def _scan(
        self, org_id: str, limit: int, sql: str, variables: dict[str, Any]
    ) -> tuple[str | None, list[IndexEntry]]:
        """The index entries one query reads, and the namespace read (None: none to read)."""
        namespace = await self._readable(org_id) if limit >= 1 else None
        if namespace is None:
            return None, []
        (rows,) = await self._conn.query(namespace, sql, variables, operation="scanning chunks")
        return namespace, [codec.entry_from_row(row) for row in rows or []]

    async def _scanned(self, chunks: int) -> None:
        """Give the engine's read memory back once a scan has read enough chunks."""
        self._scanned_since_release += chunks
        if self._scanned_since_release >= RELEASE_SCANNED_EVERY:
            self._scanned_since_release = 0
            await self._conn.release_read_memory()

    async def cached_embeddings(
        self, org_id: str, model: str, hashes: Sequence[str]
    ) -> dict[str, Vector]:
        rows = await self._select_ids(
            org_id,
            "SELECT model, hash, vec FROM $ids;",
            "embedding_cache",
            [codec.cache_key(model, h) for h in hashes],
            operation="reading the embedding cache",
        )
        found: dict[str, Vector] = {}
        for row in rows:
            if row.get("model") == model:
                found[row["hash"]] = codec.unpack_vector(row["vec"])
        return found
