"""Derived records' vectors on SurrealDB: kept on the ``entity`` and ``relates_to`` rows.

Each row holds ``vector`` and ``vector_model`` (optional fields, defined with
the rest of the derived tables, ``IF NOT EXISTS``: a namespace defined by an
older release gets them on first use, no numbered migration). Search is
brute force over the rows of the query's model in the readable spaces:
derived records are few (one or two per accepted candidate; thousands, not
millions) next to the chunks the HNSW index serves, and the scan stays
inside the policy filter with no second index to keep in step. The rows are
read once into a matrix this process keeps for a short while
(``vector_matrix``; dropped at every write to the graph); SurrealDB's
``vector::similarity::cosine`` over the rows on every search cost more than
the rest of the derived signals together (benchmarks/RESULTS.md).
"""

from collections.abc import Sequence
from typing import Any

from surrealdb import RecordID

from adapters.surreal import codec
from adapters.surreal.connection import SurrealConnection
from adapters.surreal.graph_matched import SurrealGraphMatched
from adapters.surreal.vector_matrix import VectorMatrices
from application.ports.derived import DerivedKind, DerivedText, DerivedVector
from application.ports.records import ScoredId, Vector
from domain.scopes import ScopeRef

__all__ = ["SurrealGraphVectors"]

_ROWS = (
    "SELECT meta::id(id) AS id, space, vector FROM <TABLE> WHERE vector_model = $model ORDER BY id;"
)

_MISSING = (
    "SELECT meta::id(id) AS id, <TEXT> AS text FROM <TABLE> "
    "WHERE vector_model IS NONE OR vector_model != $model ORDER BY id LIMIT $limit;"
)


class SurrealGraphVectors(SurrealGraphMatched):
    def __init__(self, connection: SurrealConnection, *, lexical_in_process: bool = True) -> None:
        super().__init__(connection, lexical_in_process=lexical_in_process)
        self._matrices = VectorMatrices()

    def _graph_changed(self, namespace: str) -> None:
        super()._graph_changed(namespace)
        self._matrices.forget(namespace)

    async def _nearest(
        self,
        table: DerivedKind,
        org_id: str,
        vector: Vector,
        limit: int,
        visible: frozenset[ScopeRef] | None,
        model: str,
    ) -> list[ScoredId]:
        if limit < 1 or not vector or (visible is not None and not visible):
            return []
        namespace = codec.namespace_for(org_id)

        async def rows() -> list[tuple[str, str, Vector]]:
            found = await self._tables.read(
                namespace,
                _ROWS.replace("<TABLE>", str(table)),
                {"model": model},
                f"reading {table} vectors",
            )
            return [(str(r["id"]), str(r.get("space") or ""), list(r["vector"])) for r in found]

        if await self._fresh(namespace):
            return []
        matrix = await self._matrices.get((namespace, str(table), model), rows)
        spaces = None if visible is None else frozenset(codec.ref_code(r) for r in visible)
        return matrix.nearest(vector, limit, spaces)

    async def entity_vector(
        self,
        org_id: str,
        vector: Vector,
        limit: int,
        visible: frozenset[ScopeRef] | None,
        model: str,
    ) -> list[ScoredId]:
        return await self._nearest(DerivedKind.ENTITY, org_id, vector, limit, visible, model)

    async def edge_vector(
        self,
        org_id: str,
        vector: Vector,
        limit: int,
        visible: frozenset[ScopeRef] | None,
        model: str,
    ) -> list[ScoredId]:
        return await self._nearest(DerivedKind.EDGE, org_id, vector, limit, visible, model)

    async def unembedded(self, org_id: str, model: str, limit: int) -> list[DerivedText]:
        namespace = codec.namespace_for(org_id)
        # no DDL where nothing was ever promoted: a missing table reads as empty
        if limit < 1 or not await self._tables.listed(namespace):
            return []
        found: list[DerivedText] = []
        for kind, text in ((DerivedKind.ENTITY, "text"), (DerivedKind.EDGE, "fact")):
            if len(found) >= limit:
                break
            sql = _MISSING.replace("<TABLE>", str(kind)).replace("<TEXT>", text)
            rows = await self._tables.read(
                namespace,
                sql,
                {"model": model, "limit": limit - len(found)},
                "finding derived records to embed",
            )
            found += [
                DerivedText(kind=kind, record_id=str(r["id"]), text=str(r["text"])) for r in rows
            ]
        return found

    async def attach_vectors(
        self, org_id: str, model: str, vectors: Sequence[DerivedVector]
    ) -> None:
        if not vectors:
            return
        namespace = codec.namespace_for(org_id)
        if not await self._tables.exists(namespace):
            return
        statements = ["BEGIN TRANSACTION;"]
        variables: dict[str, Any] = {"model": model}
        for n, v in enumerate(vectors):
            variables[f"r{n}"] = RecordID(str(v.kind), v.record_id)
            variables[f"v{n}"] = list(v.vector)
            # UPDATE of a missing record creates nothing: a record forgotten meanwhile stays gone
            # (only parameter names are formatted in; the values are bound)
            update = f"UPDATE $r{n} SET vector = $v{n}, vector_model = $model"  # noqa: S608
            statements.append(update + " RETURN NONE;")
        statements.append("COMMIT TRANSACTION;")
        self._matrices.forget(namespace)
        await self._conn.query(
            namespace,
            "\n".join(statements),
            variables,
            operation="attaching derived vectors",
            write=True,
        )
        self._matrices.forget(namespace)
