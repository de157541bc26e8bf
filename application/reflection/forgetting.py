"""When a source's text leaves (redact, delete), what was derived from it leaves too.

Candidates and promoted records quote their sources (a decision's sentence,
a person's name), so keeping them would keep the text the correction
removed. Reads already refuse them (every source must be readable); this
removes the bytes, so compaction can take them off the disk as well.
"""

from application.reflection.ports import CandidateStore, GraphStore

__all__ = ["DerivedForgetting"]


class DerivedForgetting:
    def __init__(self, *, candidates: CandidateStore, graph: GraphStore) -> None:
        self._candidates = candidates
        self._graph = graph

    async def forget(self, org_id: str, source_id: str) -> dict[str, int]:
        """Counts of what was removed (for the correction's audit receipt)."""
        return {
            "candidates": await self._candidates.forget_source(org_id, source_id),
            "entities": await self._graph.forget_source(org_id, source_id),
        }
