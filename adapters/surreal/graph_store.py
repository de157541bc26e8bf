"""The GraphStore port on SurrealDB 3: native ``entity`` rows and ``RELATE`` edges.

Entities are rows with a BM25 full-text index on ``type: name`` (the same
analyzer as chunks) and the ``space`` code the candidate filter uses;
``relates_to`` (entity to entity, typed by ``kind``, with the fact it states,
itself full-text indexed), ``mentions`` (entity to chunk) and ``supersedes``
(newer entity to older) are relation tables written with ``RELATE``, so the
graph can be walked natively (``->relates_to->entity``). Entities and edges
carry their vectors (``graph_vectors``); promoting a record again drops its
vector (``UPSERT ... CONTENT``), so the embedding pass gives it a fresh one.
Each record also keeps its JSON encoding (``body``) so every provenance
field reads back exactly.
"""

from collections.abc import Sequence
from datetime import UTC
from typing import Any

import msgspec
from surrealdb import RecordID

from adapters.surreal import codec
from adapters.surreal.graph_vectors import SurrealGraphVectors
from application.reflection.merging import name_key
from application.reflection.records import DerivedEdge, DerivedEntity, Mention, Supersession

__all__ = ["SurrealGraphStore"]

_FORGET = """
BEGIN TRANSACTION;
LET $gone = SELECT VALUE id FROM entity WHERE source_ids CONTAINS $sid;
DELETE mentions WHERE in IN $gone RETURN NONE;
DELETE supersedes WHERE in IN $gone OR out IN $gone RETURN NONE;
DELETE relates_to WHERE in IN $gone OR out IN $gone RETURN NONE;
DELETE entity WHERE id IN $gone RETURN NONE;
COMMIT TRANSACTION;
RETURN $gone;
"""


def _at(entity: DerivedEntity) -> str:
    """``valid_from`` as a UTC text that sorts as time does."""
    return entity.provenance.valid_from.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _text(entity: DerivedEntity) -> str:
    return f"{entity.type}: {entity.name}"


class SurrealGraphStore(SurrealGraphVectors):
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
                "key": name_key(e.name),
                "space": codec.ref_code(e.scope),
                "source_ids": list(e.source_ids),
                "body": msgspec.json.encode(e).decode(),
                "at": _at(e),
            }
            statements.append(f"UPSERT $e{n} CONTENT $r{n} RETURN NONE;")
        for n, edge in enumerate(edges):
            variables[f"f{n}"] = RecordID("entity", edge.from_id)
            variables[f"t{n}"] = RecordID("entity", edge.to_id)
            variables[f"g{n}"] = RecordID("relates_to", edge.edge_id)
            variables[f"k{n}"] = edge.kind
            variables[f"x{n}"] = edge.fact
            variables[f"b{n}"] = msgspec.json.encode(edge).decode()
            variables[f"p{n}"] = codec.ref_code(edge.scope)
            statements.append(
                f"RELATE $f{n}->$g{n}->$t{n} SET kind = $k{n}, fact = $x{n}, body = $b{n}, "
                f"space = $p{n} RETURN NONE;"
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
        self._graph_changed(namespace)

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
        self._graph_changed(namespace)
        return len(results[-1] or [])

    async def supersede(self, links: Sequence[Supersession]) -> None:
        if not links:
            return
        namespace = codec.namespace_for(links[0].org_id)
        await self._tables.ensure(namespace)
        ends = [RecordID("entity", i) for x in links for i in (x.newer_id, x.older_id)]
        (count,) = await self._conn.query(
            namespace,
            "RETURN count(SELECT id FROM $ids);",
            {"ids": list(dict.fromkeys(ends))},
            operation="checking superseded records",
        )
        if int(count or 0) != len(set(ends)):
            raise ValueError("a supersession joins entities that exist")
        statements = ["BEGIN TRANSACTION;"]
        variables: dict[str, Any] = {}
        for n, link in enumerate(links):
            variables[f"n{n}"] = RecordID("entity", link.newer_id)
            variables[f"o{n}"] = RecordID("entity", link.older_id)
            variables[f"g{n}"] = RecordID("supersedes", link.edge_id)
            variables[f"b{n}"] = msgspec.json.encode(link).decode()
            statements.append(
                f"IF record::exists($g{n}) == false {{ "
                f"RELATE $n{n}->$g{n}->$o{n} SET body = $b{n} RETURN NONE; }};"
            )
        statements.append("COMMIT TRANSACTION;")
        await self._conn.query(
            namespace,
            "\n".join(statements),
            variables,
            operation="writing supersessions",
            write=True,
        )

    async def drop_graph(self, org_id: str) -> None:
        namespace = codec.namespace_for(org_id)
        if await self._tables.exists(namespace):
            await self._conn.query(
                namespace,
                "DELETE mentions RETURN NONE; DELETE relates_to RETURN NONE; "
                "DELETE supersedes RETURN NONE; DELETE entity RETURN NONE;",
                operation="dropping the derived graph",
                write=True,
            )
        self._graph_changed(namespace)
