"""The CandidateStore port on SurrealDB 3: candidates in each organisation's namespace.

A candidate is stored as its JSON encoding (``body``) beside the fields a
list filters on (state): candidates are read whole and replaced whole on
review, so JSON keeps every field and datetime exact (msgspec writes RFC
3339 with the offset).
"""

from collections.abc import Sequence
from typing import Any

import msgspec
from surrealdb import RecordID

from adapters.surreal.codec import namespace_for
from adapters.surreal.connection import SurrealConnection
from adapters.surreal.namespace_tables import TableDefiner
from domain.reflection.candidates import ReflectionCandidate, ReviewState

__all__ = ["SurrealCandidateStore"]

_SCHEMA = """
DEFINE TABLE IF NOT EXISTS reflection_candidate SCHEMAFULL;
DEFINE FIELD IF NOT EXISTS state ON reflection_candidate TYPE string;
DEFINE FIELD IF NOT EXISTS body ON reflection_candidate TYPE string;
DEFINE FIELD IF NOT EXISTS source_ids ON reflection_candidate TYPE option<array<string>>;
DEFINE INDEX IF NOT EXISTS reflection_candidate_state ON reflection_candidate FIELDS state;
"""
_TABLE = "reflection_candidate"
_LIST = (
    "SELECT id, body FROM reflection_candidate WHERE ($state = NONE OR state = $state) "
    "AND ($after = NONE OR id > $after) ORDER BY id LIMIT $limit;"
)
_decode = msgspec.json.Decoder(ReflectionCandidate).decode


def _row(c: ReflectionCandidate) -> dict[str, Any]:
    return {
        "state": str(c.state),
        "source_ids": list(c.source_ids),
        "body": msgspec.json.encode(c).decode(),
    }


class SurrealCandidateStore:
    def __init__(self, connection: SurrealConnection) -> None:
        self._conn = connection
        self._tables = TableDefiner(connection, _SCHEMA, "defining reflection candidates")

    async def add_candidates(self, candidates: Sequence[ReflectionCandidate]) -> list[str]:
        if not candidates:
            return []
        namespace = namespace_for(candidates[0].org_id)
        if any(namespace_for(c.org_id) != namespace for c in candidates):
            raise ValueError("one organisation per call")
        await self._tables.ensure(namespace)
        ids = [RecordID(_TABLE, c.candidate_id) for c in candidates]
        (held,) = await self._conn.query(
            namespace,
            "SELECT VALUE meta::id(id) FROM $ids;",
            {"ids": ids},
            operation="reading candidate ids",
        )
        known = set(held or [])
        new = [c for c in candidates if c.candidate_id not in known]
        for start in range(0, len(new), 50):
            batch = new[start : start + 50]
            await self._conn.query(
                namespace,
                "INSERT IGNORE INTO reflection_candidate $rows RETURN NONE;",
                {"rows": [{"id": RecordID(_TABLE, c.candidate_id), **_row(c)} for c in batch]},
                operation="saving reflection candidates",
                write=True,
            )
        return [c.candidate_id for c in new]

    async def get_candidates(
        self, org_id: str, candidate_ids: Sequence[str]
    ) -> dict[str, ReflectionCandidate]:
        namespace = namespace_for(org_id)
        if not candidate_ids or not await self._tables.exists(namespace):
            return {}
        rows = await self._tables.read(
            namespace,
            "SELECT body FROM $ids;",
            {"ids": [RecordID(_TABLE, i) for i in dict.fromkeys(candidate_ids)]},
            "reading reflection candidates",
        )
        found = [_decode(r["body"]) for r in rows or []]
        return {c.candidate_id: c for c in found}

    async def save_candidate(self, candidate: ReflectionCandidate) -> None:
        namespace = namespace_for(candidate.org_id)
        await self._tables.ensure(namespace)
        await self._conn.query(
            namespace,
            "UPSERT $id CONTENT $row RETURN NONE;",
            {"id": RecordID(_TABLE, candidate.candidate_id), "row": _row(candidate)},
            operation="saving a reviewed candidate",
            write=True,
        )

    async def list_candidates(
        self, org_id: str, state: ReviewState | None, after: str | None, limit: int
    ) -> list[ReflectionCandidate]:
        namespace = namespace_for(org_id)
        if not await self._tables.exists(namespace):
            return []
        rows = await self._tables.read(
            namespace,
            _LIST,
            {
                "limit": int(limit),
                "state": None if state is None else str(state),
                "after": None if after is None else RecordID(_TABLE, after),
            },
            "listing reflection candidates",
        )
        return [_decode(r["body"]) for r in rows or []]

    async def forget_source(self, org_id: str, source_id: str) -> int:
        namespace = namespace_for(org_id)
        if not await self._tables.exists(namespace):
            return 0
        (gone,) = await self._conn.query(
            namespace,
            "DELETE reflection_candidate WHERE source_ids CONTAINS $sid RETURN BEFORE;",
            {"sid": source_id},
            operation="forgetting a source's candidates",
            write=True,
        )
        return len(gone or [])

    async def drop_candidates(self, org_id: str) -> None:
        namespace = namespace_for(org_id)
        if await self._tables.exists(namespace):
            await self._conn.query(
                namespace,
                "DELETE reflection_candidate RETURN NONE;",
                operation="dropping reflection candidates",
                write=True,
            )
