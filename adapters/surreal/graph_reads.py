"""The GraphStore port's reads on SurrealDB: entities, edges, full-text, supersessions.

Split from the writes (``graph_store``) so each half stays readable. Reads
never define tables: a namespace with nothing promoted reads as empty.

Entity and relationship full text is answered in process (``lexical_cache``:
the engine's own terms and BM25, postings loaded once and held like the
vectors), ranking exactly as the engine's index does on the reflection
benchmark (200 of 200 queries, both lists) at ~0.07 CPU-ms a search against
~8-10 for the engine's; a cold load costs about 1.3 engine searches, so a
miss loads rather than asking the engine (benchmarks/RESULTS.md). ``lexical_in_process=False``
keeps the engine's query.
"""

from collections.abc import Sequence
from typing import Any

import msgspec
from surrealdb import RecordID

from adapters.surreal import codec
from adapters.surreal.connection import SurrealConnection
from adapters.surreal.held_tables import HeldTables
from adapters.surreal.lexical_cache import LexicalIndex, LexicalRow
from adapters.surreal.namespace_tables import TableDefiner
from adapters.surreal.store_base import AS_RECORDS
from application.ports.records import ScoredId
from application.ports.reflection_records import (
    DerivedEdge,
    DerivedEntity,
    Supersession,
)
from application.reflection.merging import name_key
from domain.reflection.candidates import CandidateType
from domain.scopes import ScopeRef

__all__ = [
    "SCHEMA",
    "SurrealGraphReads",
    "chunk_lists",
    "decode_edge",
    "decode_entity",
    "decode_link",
]

SCHEMA = """
DEFINE ANALYZER IF NOT EXISTS tx TOKENIZERS class FILTERS lowercase, snowball(english);
DEFINE TABLE IF NOT EXISTS entity SCHEMAFULL;
DEFINE FIELD IF NOT EXISTS type ON entity TYPE string;
DEFINE FIELD IF NOT EXISTS text ON entity TYPE string;
DEFINE FIELD IF NOT EXISTS space ON entity TYPE string;
DEFINE FIELD IF NOT EXISTS source_ids ON entity TYPE array<string>;
DEFINE FIELD IF NOT EXISTS body ON entity TYPE string;
DEFINE INDEX IF NOT EXISTS entity_text ON entity FIELDS text FULLTEXT ANALYZER tx BM25;
DEFINE TABLE IF NOT EXISTS relates_to TYPE RELATION FROM entity TO entity SCHEMAFULL;
DEFINE FIELD IF NOT EXISTS kind ON relates_to TYPE string;
DEFINE FIELD IF NOT EXISTS fact ON relates_to TYPE string;
DEFINE FIELD IF NOT EXISTS body ON relates_to TYPE string;
DEFINE TABLE IF NOT EXISTS mentions TYPE RELATION FROM entity TO chunk SCHEMAFULL;
DEFINE FIELD IF NOT EXISTS at ON entity TYPE option<string>;
DEFINE INDEX IF NOT EXISTS entity_recent ON entity FIELDS type, at;
DEFINE INDEX IF NOT EXISTS entity_sources ON entity FIELDS source_ids;
DEFINE FIELD IF NOT EXISTS space ON relates_to TYPE option<string>;
DEFINE INDEX IF NOT EXISTS relates_fact ON relates_to FIELDS fact FULLTEXT ANALYZER tx BM25;
DEFINE TABLE IF NOT EXISTS supersedes TYPE RELATION FROM entity TO entity SCHEMAFULL;
DEFINE FIELD IF NOT EXISTS body ON supersedes TYPE string;
DEFINE FIELD IF NOT EXISTS vector ON entity TYPE option<array<float>>;
DEFINE FIELD IF NOT EXISTS vector_model ON entity TYPE option<string>;
DEFINE FIELD IF NOT EXISTS vector ON relates_to TYPE option<array<float>>;
DEFINE FIELD IF NOT EXISTS vector_model ON relates_to TYPE option<string>;
DEFINE FIELD IF NOT EXISTS key ON entity TYPE option<string>;
DEFINE INDEX IF NOT EXISTS entity_key ON entity FIELDS key, type, space;
DEFINE TABLE IF NOT EXISTS graph_version SCHEMAFULL;
DEFINE FIELD IF NOT EXISTS n ON graph_version TYPE string;
"""
_LEXICAL_ALL = (
    "SELECT meta::id(id) AS id, search::score(1) AS s FROM entity WHERE text @1,OR@ $q "
    "ORDER BY s DESC, id LIMIT $limit;"
)

_LEXICAL_VISIBLE = (
    "SELECT meta::id(id) AS id, search::score(1) AS s FROM entity WHERE text @1,OR@ $q "
    "AND space IN $spaces ORDER BY s DESC, id LIMIT $limit;"
)

_EDGES_ALL = (
    "SELECT meta::id(id) AS id, search::score(1) AS s FROM relates_to WHERE fact @1,OR@ $q "
    "ORDER BY s DESC, id LIMIT $limit;"
)

_EDGES_VISIBLE = (
    "SELECT meta::id(id) AS id, search::score(1) AS s FROM relates_to WHERE fact @1,OR@ $q "
    "AND space IN $spaces ORDER BY s DESC, id LIMIT $limit;"
)

#: a table's rows for the in-process full text (``lexical_cache``): the engine's own terms
#: of each row, and its text (to learn which term each query word is; not kept)
_LEXICAL_ROWS = (
    "SELECT meta::id(id) AS id, space, <FIELD> AS x, search::analyze('tx', <FIELD>) AS t "
    "FROM <TABLE>;"
)

_RECENT = (
    "SELECT body, at, id FROM entity WHERE type IN $types<SPACES> "
    "ORDER BY at DESC, id LIMIT $limit;"
)

decode_entity = msgspec.json.Decoder(DerivedEntity).decode
decode_edge = msgspec.json.Decoder(DerivedEdge).decode
decode_link = msgspec.json.Decoder(Supersession).decode


#: each entity's chunks along its own ``mentions`` edges, one row per entity: not a scan of
#: the table, and no row per mention to decode (350 mentions of 21 entities among 3,300,
#: engine and decoding CPU: 8.2 ms as ``FROM mentions WHERE in IN $ids``, 5.8 as
#: ``FROM $ids->mentions``, 3.3 so), each entity's chunks in the same (edge id) order
_MENTIONS = "SELECT meta::id(id) AS e, (->mentions->chunk).map(|$c| meta::id($c)) AS c FROM $ids;"


def chunk_lists(rows: Sequence[dict[str, Any]]) -> dict[str, list[str]]:
    """``_MENTIONS`` rows (``e``: entity, ``c``: its chunk ids) as each entity's chunk ids."""
    found: dict[str, list[str]] = {}
    for row in rows:
        chunks = list(dict.fromkeys(str(c) for c in row.get("c") or []))
        if chunks:
            found[str(row["e"])] = chunks
    return found


class SurrealGraphReads:
    """What the graph answers; ``SurrealGraphStore`` adds the writes."""

    def __init__(self, connection: SurrealConnection, *, lexical_in_process: bool = True) -> None:
        self._conn = connection
        self._tables = TableDefiner(connection, SCHEMA, "defining the derived graph")
        #: entity and relationship full text answered in process (``lexical_cache``); False:
        #: by the engine's own index on every search (the benchmark's A/B arm)
        self.lexical_in_process = lexical_in_process
        self._lexical = HeldTables()

    async def _lexical_search(
        self,
        namespace: str,
        table: str,
        field: str,
        query: str,
        limit: int,
        visible: frozenset[ScopeRef] | None,
    ) -> list[ScoredId]:
        """The table's full text answered in process, its postings loaded when missing."""

        async def load(_: float) -> LexicalIndex:
            sql = _LEXICAL_ROWS.replace("<FIELD>", field).replace("<TABLE>", table)
            rows = await self._tables.read(namespace, sql, {}, f"reading {table} terms")
            found: list[LexicalRow] = [
                (str(r["id"]), str(r.get("space") or ""), list(r.get("t") or []), str(r["x"]))
                for r in rows
            ]
            return LexicalIndex(found)

        if await self._fresh(namespace):
            return []
        index: LexicalIndex = await self._lexical.get((namespace, table), load)
        spaces = None if visible is None else frozenset(codec.ref_code(r) for r in visible)
        return index.search(query, int(limit), spaces)

    async def _fresh(self, namespace: str) -> bool:
        """Before what is held of the namespace's graph is used: a subclass checks that no
        other process wrote it since (``graph_matched``). True when the namespace is known
        to have no graph, so there is nothing to read."""
        return False

    def _graph_changed(self, namespace: str) -> None:
        """This process wrote the namespace's graph: what it holds of it is read again."""
        self._lexical.forget(namespace)

    async def _by_ids(
        self,
        namespace: str,
        sql: str,
        table: str,
        ids: Sequence[str],
        operation: str,
        more: dict[str, Any] | None = None,
    ) -> list[Any]:
        """The rows of ``sql`` over ``$ids``, records of ``table`` made in the engine from
        the ids sent as text (``store_base.AS_RECORDS``: far cheaper to encode)."""
        variables = {"keys": list(dict.fromkeys(ids)), "table": table, **(more or {})}
        rows = await self._tables.read_last(namespace, AS_RECORDS + sql, variables, operation)
        return list(rows or [])

    async def get_entities(
        self, org_id: str, entity_ids: Sequence[str]
    ) -> dict[str, DerivedEntity]:
        namespace = codec.namespace_for(org_id)
        if not entity_ids or not await self._tables.exists(namespace):
            return {}
        rows = await self._by_ids(
            namespace, "SELECT body FROM $ids;", "entity", entity_ids, "reading derived entities"
        )
        found = [decode_entity(r["body"]) for r in rows or []]
        return {e.entity_id: e for e in found}

    async def entity_named(
        self, org_id: str, kind: CandidateType, name: str, scope: ScopeRef
    ) -> DerivedEntity | None:
        namespace = codec.namespace_for(org_id)
        if not await self._tables.exists(namespace):
            return None
        rows = await self._tables.read(
            namespace,
            "SELECT id, body FROM entity WHERE key = $key AND type = $type AND space = $space "
            "ORDER BY id LIMIT 1;",
            {"key": name_key(name), "type": str(kind), "space": codec.ref_code(scope)},
            "finding an entity by name",
        )
        return decode_entity(rows[0]["body"]) if rows else None

    async def entity_lexical(
        self, org_id: str, query: str, limit: int, visible: frozenset[ScopeRef] | None
    ) -> list[ScoredId]:
        if not query.strip() or (visible is not None and not visible):
            return []
        # on the search path: no root lookup and no DDL; a missing table reads as empty
        namespace = codec.namespace_for(org_id)
        if self.lexical_in_process:
            return await self._lexical_search(namespace, "entity", "text", query, limit, visible)
        variables: dict[str, Any] = {"q": query, "limit": int(limit)}
        sql = _LEXICAL_ALL
        if visible is not None:
            sql = _LEXICAL_VISIBLE
            variables["spaces"] = sorted(codec.ref_code(ref) for ref in visible)
        rows = await self._tables.read(namespace, sql, variables, "searching derived entities")
        return [ScoredId(str(r["id"]), float(r["s"])) for r in rows or []]

    async def mentions_of(self, org_id: str, entity_ids: Sequence[str]) -> dict[str, list[str]]:
        namespace = codec.namespace_for(org_id)
        if not entity_ids or not await self._tables.exists(namespace):
            return {}
        rows = await self._by_ids(
            namespace,
            _MENTIONS,
            "entity",
            entity_ids,
            "reading mentions",
        )
        return chunk_lists(rows or [])

    async def edges_of(self, org_id: str, entity_id: str) -> list[DerivedEdge]:
        namespace = codec.namespace_for(org_id)
        if not await self._tables.exists(namespace):
            return []
        rows = await self._tables.read(
            namespace,
            "SELECT id, body FROM relates_to WHERE in = $e OR out = $e ORDER BY id;",
            {"e": RecordID("entity", entity_id)},
            "reading relationships",
        )
        return [decode_edge(r["body"]) for r in rows or []]

    async def edge_lexical(
        self, org_id: str, query: str, limit: int, visible: frozenset[ScopeRef] | None
    ) -> list[ScoredId]:
        if not query.strip() or (visible is not None and not visible):
            return []
        namespace = codec.namespace_for(org_id)
        if self.lexical_in_process:
            return await self._lexical_search(
                namespace, "relates_to", "fact", query, limit, visible
            )
        variables: dict[str, Any] = {"q": query, "limit": int(limit)}
        sql = _EDGES_ALL
        if visible is not None:
            sql = _EDGES_VISIBLE
            variables["spaces"] = sorted(codec.ref_code(ref) for ref in visible)
        rows = await self._tables.read(namespace, sql, variables, "searching relationships")
        return [ScoredId(str(r["id"]), float(r["s"])) for r in rows or []]

    async def get_edges(self, org_id: str, edge_ids: Sequence[str]) -> dict[str, DerivedEdge]:
        namespace = codec.namespace_for(org_id)
        if not edge_ids or not await self._tables.exists(namespace):
            return {}
        rows = await self._by_ids(
            namespace, "SELECT body FROM $ids;", "relates_to", edge_ids, "reading relationships"
        )
        found = [decode_edge(r["body"]) for r in rows or []]
        return {e.edge_id: e for e in found}

    async def recent_entities(
        self,
        org_id: str,
        types: frozenset[CandidateType],
        visible: frozenset[ScopeRef] | None,
        limit: int,
    ) -> list[DerivedEntity]:
        namespace = codec.namespace_for(org_id)
        if limit < 1 or not types or (visible is not None and not visible):
            return []
        if not await self._tables.exists(namespace):
            return []
        variables: dict[str, Any] = {"types": sorted(str(t) for t in types), "limit": int(limit)}
        sql = _RECENT.replace("<SPACES>", "")
        if visible is not None:
            sql = _RECENT.replace("<SPACES>", " AND space IN $spaces")
            variables["spaces"] = sorted(codec.ref_code(ref) for ref in visible)
        rows = await self._tables.read(namespace, sql, variables, "listing recent entities")
        return [decode_entity(r["body"]) for r in rows or []]

    async def entities_citing(self, org_id: str, source_ids: Sequence[str]) -> list[DerivedEntity]:
        namespace = codec.namespace_for(org_id)
        if not source_ids or not await self._tables.exists(namespace):
            return []
        rows = await self._tables.read(
            namespace,
            "SELECT id, body FROM entity WHERE source_ids CONTAINSANY $sids ORDER BY id;",
            {"sids": list(dict.fromkeys(source_ids))},
            "reading the entities of sources",
        )
        return [decode_entity(r["body"]) for r in rows or []]

    async def neighbours(
        self, org_id: str, entity_ids: Sequence[str], limit: int
    ) -> list[DerivedEdge]:
        namespace = codec.namespace_for(org_id)
        if not entity_ids or limit < 1 or not await self._tables.exists(namespace):
            return []
        rows = await self._by_ids(
            namespace,
            "SELECT id, body FROM relates_to WHERE in IN $ids OR out IN $ids "
            "ORDER BY id LIMIT $limit;",
            "entity",
            entity_ids,
            "walking relationships",
            {"limit": int(limit)},
        )
        return [decode_edge(r["body"]) for r in rows or []]

    async def supersessions(self, org_id: str, entity_ids: Sequence[str]) -> list[Supersession]:
        namespace = codec.namespace_for(org_id)
        if not entity_ids or not await self._tables.exists(namespace):
            return []
        rows = await self._by_ids(
            namespace,
            "SELECT id, body FROM supersedes WHERE in IN $ids OR out IN $ids ORDER BY id;",
            "entity",
            entity_ids,
            "reading supersessions",
        )
        return [decode_link(r["body"]) for r in rows or []]
