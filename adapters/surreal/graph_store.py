"""The GraphStore port on SurrealDB 3: native ``entity`` rows and ``RELATE`` edges.

Entities are rows with a BM25 full-text index on ``type: name`` (the same
analyzer as chunks) and the ``space`` code the candidate filter uses;
``relates_to`` (entity to entity, typed by ``kind``, with the fact it states)
and ``mentions`` (entity to chunk) are relation tables written with
``RELATE``, so the graph can be walked natively (``->relates_to->entity``).
Each record also keeps its JSON encoding (``body``) so every provenance
field reads back exactly.
"""

from collections.abc import Sequence
from typing import Any

import msgspec
from surrealdb import RecordID

from adapters.surreal import codec
from adapters.surreal.connection import SurrealConnection
from adapters.surreal.derived_tables import TableDefiner
from application.records import ScoredId
from application.reflection.records import DerivedEdge, DerivedEntity, Mention
from domain.scopes import ScopeRef

__all__ = ["SurrealGraphStore"]

_SCHEMA = """
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
"""
_LEXICAL_ALL = (
    "SELECT meta::id(id) AS id, search::score(1) AS s FROM entity WHERE text @1,OR@ $q "
    "ORDER BY s DESC, id LIMIT $limit;"
)
_LEXICAL_VISIBLE = (
    "SELECT meta::id(id) AS id, search::score(1) AS s FROM entity WHERE text @1,OR@ $q "
    "AND space IN $spaces ORDER BY s DESC, id LIMIT $limit;"
)
_FORGET = """
BEGIN TRANSACTION;
LET $gone = SELECT VALUE id FROM entity WHERE source_ids CONTAINS $sid;
DELETE mentions WHERE in IN $gone RETURN NONE;
DELETE relates_to WHERE in IN $gone OR out IN $gone RETURN NONE;
DELETE entity WHERE id IN $gone RETURN NONE;
COMMIT TRANSACTION;
RETURN $gone;
"""
_decode_entity = msgspec.json.Decoder(DerivedEntity).decode
_decode_edge = msgspec.json.Decoder(DerivedEdge).decode


def _text(entity: DerivedEntity) -> str:
    return f"{entity.type}: {entity.name}"


class SurrealGraphStore:
    def __init__(self, connection: SurrealConnection) -> None:
        self._conn = connection
        self._tables = TableDefiner(connection, _SCHEMA, "defining the derived graph")

    async def promote(
        self,
        entities: Sequence[DerivedEntity],
        edges: Sequence[DerivedEdge],
        mentions: Sequence[Mention],
    ) -> None:
        if not entities:
            return
        namespace = codec.namespace_for(entities[0].org_id)
        await self._tables.ensure(namespace)
        statements = ["BEGIN TRANSACTION;"]
        variables: dict[str, Any] = {}
        for n, e in enumerate(entities):
            variables[f"e{n}"] = RecordID("entity", e.entity_id)
            variables[f"r{n}"] = {
                "type": str(e.type),
                "text": _text(e),
                "space": codec.ref_code(e.scope),
                "source_ids": list(e.source_ids),
                "body": msgspec.json.encode(e).decode(),
            }
            statements.append(f"UPSERT $e{n} CONTENT $r{n} RETURN NONE;")
        for n, edge in enumerate(edges):
            variables[f"f{n}"] = RecordID("entity", edge.from_id)
            variables[f"t{n}"] = RecordID("entity", edge.to_id)
            variables[f"g{n}"] = RecordID("relates_to", edge.edge_id)
            variables[f"k{n}"] = edge.kind
            variables[f"x{n}"] = edge.fact
            variables[f"b{n}"] = msgspec.json.encode(edge).decode()
            statements.append(
                f"RELATE $f{n}->$g{n}->$t{n} SET kind = $k{n}, fact = $x{n}, body = $b{n} "
                "RETURN NONE;"
            )
        for n, m in enumerate(mentions):
            variables[f"m{n}"] = RecordID("entity", m.entity_id)
            variables[f"c{n}"] = RecordID("chunk", m.chunk_id)
            statements.append(f"RELATE $m{n}->mentions->$c{n} RETURN NONE;")
        statements.append("COMMIT TRANSACTION;")
        await self._conn.query(
            namespace,
            "\n".join(statements),
            variables,
            operation="promoting derived records",
            write=True,
        )

    async def get_entities(
        self, org_id: str, entity_ids: Sequence[str]
    ) -> dict[str, DerivedEntity]:
        namespace = codec.namespace_for(org_id)
        if not entity_ids or not await self._tables.exists(namespace):
            return {}
        rows = await self._tables.read(
            namespace,
            "SELECT body FROM $ids;",
            {"ids": [RecordID("entity", i) for i in dict.fromkeys(entity_ids)]},
            "reading derived entities",
        )
        found = [_decode_entity(r["body"]) for r in rows or []]
        return {e.entity_id: e for e in found}

    async def entity_lexical(
        self, org_id: str, query: str, limit: int, visible: frozenset[ScopeRef] | None
    ) -> list[ScoredId]:
        if not query.strip():
            return []
        # on the search path: no root lookup and no DDL; a missing table reads as empty
        namespace = codec.namespace_for(org_id)
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
        rows = await self._tables.read(
            namespace,
            "SELECT meta::id(in) AS e, meta::id(out) AS c FROM mentions WHERE in IN $ids;",
            {"ids": [RecordID("entity", i) for i in dict.fromkeys(entity_ids)]},
            "reading mentions",
        )
        found: dict[str, list[str]] = {}
        for row in rows or []:
            chunks = found.setdefault(str(row["e"]), [])
            if str(row["c"]) not in chunks:
                chunks.append(str(row["c"]))
        return found

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
        return [_decode_edge(r["body"]) for r in rows or []]

    async def forget_source(self, org_id: str, source_id: str) -> int:
        namespace = codec.namespace_for(org_id)
        if not await self._tables.exists(namespace):
            return 0
        results = await self._conn.query(
            namespace,
            _FORGET,
            {"sid": source_id},
            operation="forgetting a source's derived records",
            write=True,
        )
        return len(results[-1] or [])

    async def drop_graph(self, org_id: str) -> None:
        namespace = codec.namespace_for(org_id)
        if await self._tables.exists(namespace):
            await self._conn.query(
                namespace,
                "DELETE mentions RETURN NONE; DELETE relates_to RETURN NONE; "
                "DELETE entity RETURN NONE;",
                operation="dropping the derived graph",
                write=True,
            )
