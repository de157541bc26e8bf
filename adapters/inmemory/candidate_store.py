"""Reflection candidates in a dict: the reference adapter of ``CandidateStore``, used by tests."""

from collections.abc import Sequence

from domain.reflection.candidates import ReflectionCandidate, ReviewState

__all__ = ["InMemoryCandidateStore"]


class InMemoryCandidateStore:
    def __init__(self) -> None:
        self._rows: dict[tuple[str, str], ReflectionCandidate] = {}

    async def add_candidates(self, candidates: Sequence[ReflectionCandidate]) -> list[str]:
        kept: list[str] = []
        for c in candidates:
            key = (c.org_id, c.candidate_id)
            if key not in self._rows:
                self._rows[key] = c
                kept.append(c.candidate_id)
        return kept

    async def get_candidates(
        self, org_id: str, candidate_ids: Sequence[str]
    ) -> dict[str, ReflectionCandidate]:
        return {
            cid: self._rows[(org_id, cid)] for cid in candidate_ids if (org_id, cid) in self._rows
        }

    async def save_candidate(self, candidate: ReflectionCandidate) -> None:
        self._rows[(candidate.org_id, candidate.candidate_id)] = candidate

    async def list_candidates(
        self, org_id: str, state: ReviewState | None, after: str | None, limit: int
    ) -> list[ReflectionCandidate]:
        rows = sorted(
            (c for (org, cid), c in self._rows.items() if org == org_id),
            key=lambda c: c.candidate_id,
        )
        return [
            c
            for c in rows
            if (state is None or c.state is state) and (after is None or c.candidate_id > after)
        ][:limit]

    async def forget_source(self, org_id: str, source_id: str) -> int:
        gone = [k for k, c in self._rows.items() if k[0] == org_id and source_id in c.source_ids]
        for key in gone:
            del self._rows[key]
        return len(gone)

    async def drop_candidates(self, org_id: str) -> None:
        for key in [k for k in self._rows if k[0] == org_id]:
            del self._rows[key]
