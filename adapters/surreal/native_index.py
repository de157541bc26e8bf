"""The RetrievalIndex port on SurrealDB's own FULLTEXT (BM25) and HNSW indexes.

Nothing is derived or held in process: the store's ``chunk`` table is indexed
by SurrealDB as it is written, so ``add``/``mark_ready`` do nothing and the
index is always ready. Filters (visible spaces, recall keys) are applied
inside the candidate queries, before ranking.

Lexical matching is ``@1,OR@``: any query term may match and BM25 ranks by how
many and how rare, as a candidate list needs (``@1@`` requires every term).

A filter inside the KNN clause makes SurrealDB walk the whole table, so the
vector query takes the k nearest first and filters in an outer SELECT; when
the filter leaves fewer than ``limit`` hits and more chunks exist, it asks
again for four times as many, so a selective filter costs time, not recall.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from surrealdb import RecordID

from adapters.surreal import codec
from adapters.surreal.filter_sql import narrowing_sql
from adapters.surreal.memory_store import SurrealMemoryStore
from application.ports.records import CandidateFilter, IndexedText, IndexEntry, ScoredId, Vector
from domain.errors import ConflictError
from domain.reasons import ReasonCode
from domain.scopes import LifecycleState

__all__ = ["SurrealNativeIndex"]

#: nearest neighbours fetched per requested hit before filtering
_OVERFETCH = 4
_MIN_NEAREST = 40
_EF = 40


# Query templates: <FILTER>, <K> and <EF> are replaced by the constants and ints
# below, never by caller text; every value travels as a variable.
_LEXICAL = (
    "SELECT meta::id(id) AS id, search::score(1) AS s FROM chunk "
    "WHERE text @1,OR@ $q AND <FILTER> ORDER BY s DESC LIMIT $limit;"
)
_VECTOR = (
    "LET $near = SELECT meta::id(id) AS id, vector::distance::knn() AS d, recall, space, "
    "source_id, scope, scope_key, occurred_at, speaker FROM chunk WHERE emb <|<K>,<EF>|> $v;\n"
    # the nearest keep the fields a caller's ``filters`` read (filter_sql)
    "RETURN {n: array::len($near), hits: (SELECT id, d FROM $near "
    "WHERE <FILTER> ORDER BY d LIMIT $limit)};"
)
_LEXICAL_BY_SOURCE = (
    "SELECT source_id, search::score(1) AS s FROM chunk "
    "WHERE text @1,OR@ $q AND <FILTER> ORDER BY s DESC LIMIT $limit;"
)
_VECTOR_BY_SOURCE = (
    "LET $near = SELECT vector::distance::knn() AS d, recall, space, "
    "source_id, scope, scope_key, occurred_at, speaker FROM chunk WHERE emb <|<K>,<EF>|> $v;\n"
    "RETURN (SELECT source_id, d FROM $near WHERE <FILTER>);"
)
_MEMBERS = (
    "SELECT meta::id(id) AS id, source_id, turn_index, ordinal FROM chunk "
    "WHERE source_id IN $sids AND <FILTER> ORDER BY source_id, turn_index, ordinal;"
)
_TEXTS = (
    "SELECT meta::id(id) AS id, source_id, text, role, turn_index, occurred_at, occurred_tz, "
    "speaker "
    "FROM $ids WHERE <FILTER>;"
)
#: chunk hits read per requested episode when episodes are scored from chunk hits
_CHUNKS_PER_EPISODE = 10
#: the lifecycle half of every filter: the recall keys (domain.lifecycle) the caller may see
_RECALLABLE = "recall IN $recall"
_RECALLABLE_AND_VISIBLE = "recall IN $recall AND space IN $spaces"


def _filter_sql(where: CandidateFilter) -> tuple[str, dict[str, Any]]:
    recall = sorted(where.recall)
    if where.visible is None:
        return _RECALLABLE, {"recall": recall}
    spaces = sorted(codec.ref_code(ref) for ref in where.visible)
    return _RECALLABLE_AND_VISIBLE, {"recall": recall, "spaces": spaces}


def _top(totals: dict[str, float], limit: int) -> list[ScoredId]:
    ranked = sorted(totals.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
    return [ScoredId(source_id, score) for source_id, score in ranked]


class SurrealNativeIndex:
    """Episode signals are approximated from chunk hits (summed BM25, mean cosine of the
    nearest chunks): the engine has no per-episode document, and the in-process index
    is the default for them."""

    def __init__(self, store: SurrealMemoryStore) -> None:
        self._store = store

    @property
    def name(self) -> str:
        return "surreal"

    def is_ready(self, org_id: str) -> bool:
        return True

    async def add(self, org_id: str, entries: Sequence[IndexEntry]) -> None:
        return None

    async def mark_ready(self, org_id: str) -> None:
        return None

    async def attach_vectors(self, org_id: str, vectors: Mapping[str, Vector]) -> None:
        """Nothing to do: the store's ``attach_vectors`` wrote the rows the HNSW index reads
        (a pending row has no ``emb``, so no KNN finds it until then)."""
        return None

    async def update(
        self, org_id: str, source_id: str, lifecycle: LifecycleState, recall: str
    ) -> None:
        """Nothing to do: the store's ``update_source`` changed the very rows this index reads."""
        return None

    async def remove(self, org_id: str, source_id: str) -> None:
        """Nothing to do: the store deleted the rows, and their BM25 and HNSW entries with them."""
        return None

    async def drop(self, org_id: str) -> None:
        """Nothing to drop: the indexes go with the organisation's namespace."""
        return None

    async def _condition(self, org_id: str, where: CandidateFilter) -> tuple[str, dict[str, Any]]:
        """The policy's filter and, when given, the caller's ``filters`` (filter_sql)."""
        condition, variables = _filter_sql(where)
        if where.narrow is None or where.narrow.is_empty:
            return condition, variables
        spaces = variables.get("spaces")
        extra, params = await narrowing_sql(
            self._store.connection, codec.namespace_for(org_id), where.narrow, spaces
        )
        return " AND ".join([condition, *extra]), {**variables, **params}

    async def _filtered_rows(
        self,
        org_id: str,
        sql: str,
        where: CandidateFilter,
        params: dict[str, Any],
        operation: str,
    ) -> list[dict[str, Any]]:
        """Rows of ``sql`` with the caller's filter in its WHERE; none for an empty filter."""
        if where.visible == frozenset() or await self._store.space_of(org_id) is None:
            return []
        condition, variables = await self._condition(org_id, where)
        (rows,) = await self._store.connection.query(
            codec.namespace_for(org_id),
            sql.replace("<FILTER>", condition),
            {**params, **variables},
            operation=operation,
        )
        return list(rows or [])

    async def _text_rows(
        self, org_id: str, sql: str, query: str, limit: int, where: CandidateFilter, operation: str
    ) -> list[dict[str, Any]]:
        """BM25 rows of ``sql`` inside the caller's filter; none for an empty query."""
        if limit < 1 or not query.strip():
            return []
        params = {"q": query, "limit": int(limit)}
        return await self._filtered_rows(org_id, sql, where, params, operation)

    async def _may_search_vectors(
        self, org_id: str, vector: Vector, limit: int, where: CandidateFilter
    ) -> bool:
        """False when nothing can match; a query vector of another model is refused."""
        if limit < 1 or where.visible == frozenset():
            return False
        space = await self._store.space_of(org_id)
        if space is None:
            return False
        if len(vector) != space.dimension:
            raise ConflictError(
                ReasonCode.EMBEDDER_MISMATCH,
                f"query vector has {len(vector)} dimensions; organisation {org_id} "
                f"stores {space.dimension}",
            )
        return True

    async def lexical(
        self, org_id: str, query: str, limit: int, where: CandidateFilter
    ) -> list[ScoredId]:
        rows = await self._text_rows(org_id, _LEXICAL, query, limit, where, "searching text")
        return [ScoredId(str(r["id"]), float(r["s"])) for r in rows]

    async def vector(
        self, org_id: str, vector: Vector, limit: int, where: CandidateFilter
    ) -> list[ScoredId]:
        if not await self._may_search_vectors(org_id, vector, limit, where):
            return []
        condition, variables = await self._condition(org_id, where)
        nearest = max(limit * _OVERFETCH, _MIN_NEAREST)
        while True:
            # k and ef must be literals in SurrealQL (a parameter is a parse error).
            sql = (
                _VECTOR.replace("<FILTER>", condition)
                .replace("<K>", str(int(nearest)))
                .replace("<EF>", str(max(_EF, int(nearest))))
            )
            _, answer = await self._store.connection.query(
                codec.namespace_for(org_id),
                sql,
                {"v": [float(x) for x in vector], "limit": int(limit), **variables},
                operation="searching vectors",
            )
            hits = answer["hits"] or []
            if len(hits) >= limit or int(answer["n"]) < nearest:
                return [ScoredId(str(h["id"]), 1.0 - float(h["d"])) for h in hits]
            nearest *= _OVERFETCH

    async def episode_lexical(
        self, org_id: str, query: str, limit: int, where: CandidateFilter
    ) -> list[ScoredId]:
        rows = await self._text_rows(
            org_id,
            _LEXICAL_BY_SOURCE,
            query,
            limit * _CHUNKS_PER_EPISODE,
            where,
            "searching episode text",
        )
        totals: dict[str, float] = {}
        for row in rows:
            totals[row["source_id"]] = totals.get(row["source_id"], 0.0) + float(row["s"])
        return _top(totals, limit)

    async def episode_vector(
        self, org_id: str, vector: Vector, limit: int, where: CandidateFilter
    ) -> list[ScoredId]:
        if not await self._may_search_vectors(org_id, vector, limit, where):
            return []
        condition, variables = await self._condition(org_id, where)
        nearest = max(limit * _CHUNKS_PER_EPISODE, _MIN_NEAREST)
        sql = (
            _VECTOR_BY_SOURCE.replace("<FILTER>", condition)
            .replace("<K>", str(int(nearest)))
            .replace("<EF>", str(max(_EF, int(nearest))))
        )
        _, rows = await self._store.connection.query(
            codec.namespace_for(org_id),
            sql,
            {"v": [float(x) for x in vector], **variables},
            operation="searching episode vectors",
        )
        sums: dict[str, float] = {}
        counts: dict[str, int] = {}
        for row in rows or []:
            sums[row["source_id"]] = sums.get(row["source_id"], 0.0) + 1.0 - float(row["d"])
            counts[row["source_id"]] = counts.get(row["source_id"], 0) + 1
        return _top({k: sums[k] / counts[k] for k in sums}, limit)

    async def episode_members(
        self, org_id: str, source_ids: Sequence[str], where: CandidateFilter
    ) -> dict[str, list[str]]:
        wanted = list(dict.fromkeys(source_ids))
        if not wanted:
            return {}
        rows = await self._filtered_rows(
            org_id, _MEMBERS, where, {"sids": wanted}, "reading episode members"
        )
        out: dict[str, list[str]] = {}
        for row in rows:
            out.setdefault(row["source_id"], []).append(str(row["id"]))
        return out

    async def candidate_texts(
        self, org_id: str, chunk_ids: Sequence[str], where: CandidateFilter
    ) -> dict[str, IndexedText]:
        wanted = list(dict.fromkeys(chunk_ids))
        if not wanted:
            return {}
        ids = [RecordID("chunk", c) for c in wanted]
        rows = await self._filtered_rows(
            org_id, _TEXTS, where, {"ids": ids}, "reading candidate texts"
        )
        return {str(row["id"]): codec.text_from_row(row) for row in rows}
