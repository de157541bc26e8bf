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

import uuid
from collections.abc import Sequence
from datetime import UTC
from typing import Any

import msgspec
from surrealdb import RecordID

from adapters.surreal import codec
from adapters.surreal.graph_image import GraphImage
from adapters.surreal.graph_matched import BUMP
from adapters.surreal.graph_vectors import SurrealGraphVectors
from application.ports.reflection_records import DerivedEdge, DerivedEntity, Mention, Supersession
from application.reflection.merging import name_key

__all__ = ["SurrealGraphStore"]

_FORGET = """
BEGIN TRANSACTION;
<BUMP>LET $gone = SELECT VALUE id FROM entity WHERE source_ids CONTAINS $sid;
DELETE mentions WHERE in IN $gone RETURN NONE;
DELETE supersedes WHERE in IN $gone OR out IN $gone RETURN NONE;
DELETE relates_to WHERE in IN $gone OR out IN $gone RETURN NONE;
DELETE entity WHERE id IN $gone RETURN NONE;
COMMIT TRANSACTION;
RETURN [$before, $gone.map(|$r| meta::id($r))];
""".replace("<BUMP>", BUMP)

#: in a promotion's transaction: the promoted entities' mentions as a search reads them
#: (the order of the mention edges' generated ids), for the held image (``graph_image``)
_PROMOTED = (
    "LET $chunks = SELECT VALUE [meta::id(id), (->mentions->chunk).map(|$c| meta::id($c))]"
    " FROM $promoted;"
)


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
        token = uuid.uuid4().hex
        statements = ["BEGIN TRANSACTION;", BUMP]
        variables: dict[str, Any] = {"graph_token": token}
        rows: list[tuple[DerivedEntity, str | None, str]] = []
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
            rows.append((e, name_key(e.name), codec.ref_code(e.scope)))
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
        statements += [_PROMOTED, "COMMIT TRANSACTION;", "RETURN [$before, $chunks];"]
        variables["promoted"] = [
            RecordID("entity", i) for i in dict.fromkeys(e.entity_id for e in entities)
        ]
        results = await self._conn.query(
            namespace,
            "\n".join(statements),
            variables,
            operation="promoting derived records",
            write=True,
        )
        before, chunks = results[-1]
        image = self._wrote(namespace, before, token)
        if image is not None:
            image.promoted(rows, edges, chunks)
        self._graph_changed(namespace)

    async def forget_source(self, org_id: str, source_id: str) -> int:
        namespace = codec.namespace_for(org_id)
        if not await self._tables.exists(namespace):
            return 0
        token = uuid.uuid4().hex
        results = await self._conn.query(
            namespace,
            _FORGET,
            {"sid": source_id, "graph_token": token},
            operation="forgetting a source's derived records",
            write=True,
        )
        before, gone = results[-1]
        image = self._wrote(namespace, before, token)
        if image is not None:
            image.forgot(str(i) for i in gone or [])
        self._graph_changed(namespace)
        return len(gone or [])

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
        token = uuid.uuid4().hex
        statements = ["BEGIN TRANSACTION;", BUMP]
        variables: dict[str, Any] = {"graph_token": token}
        for n, link in enumerate(links):
            variables[f"n{n}"] = RecordID("entity", link.newer_id)
            variables[f"o{n}"] = RecordID("entity", link.older_id)
            variables[f"g{n}"] = RecordID("supersedes", link.edge_id)
            variables[f"b{n}"] = msgspec.json.encode(link).decode()
            statements.append(
                f"IF record::exists($g{n}) == false {{ "
                f"RELATE $n{n}->$g{n}->$o{n} SET body = $b{n} RETURN NONE; }};"
            )
        statements += ["COMMIT TRANSACTION;", "RETURN $before;"]
        results = await self._conn.query(
            namespace,
            "\n".join(statements),
            variables,
            operation="writing supersessions",
            write=True,
        )
        image = self._wrote(namespace, results[-1], token)
        if image is not None:
            image.superseded(links)

    async def drop_graph(self, org_id: str) -> None:
        namespace = codec.namespace_for(org_id)
        if await self._tables.exists(namespace):
            token = uuid.uuid4().hex
            results = await self._conn.query(
                namespace,
                "BEGIN TRANSACTION;\n" + BUMP + "DELETE mentions RETURN NONE; "
                "DELETE relates_to RETURN NONE; DELETE supersedes RETURN NONE; "
                "DELETE entity RETURN NONE;\nCOMMIT TRANSACTION;\nRETURN $before;",
                {"graph_token": token},
                operation="dropping the derived graph",
                write=True,
            )
            if self._wrote(namespace, results[-1], token) is not None:
                self._images[namespace] = GraphImage(token)
        self._graph_changed(namespace)
