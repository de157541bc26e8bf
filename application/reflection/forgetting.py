"""When a source's text leaves (redact, delete), what was derived from it leaves too.

Candidates and promoted records quote their sources (a decision's sentence,
a person's name), so keeping them would keep the text the correction
removed. Reads already refuse them (every source must be readable); this
removes the bytes, so compaction can take them off the disk as well.
"""

from datetime import datetime

from application.ports import MemoryStore
from application.ports.reflection import CandidateStore, GraphStore
from application.reflection.superseding import Superseding

__all__ = ["DerivedForgetting"]


class DerivedForgetting:
    """Also where a source-level ``supersede`` reaches the derived records (SUPERSEDES)."""

    def __init__(
        self, *, candidates: CandidateStore, graph: GraphStore, store: MemoryStore
    ) -> None:
        self._candidates = candidates
        self._graph = graph
        self._superseding = Superseding(store=store, graph=graph)

    async def supersede(self, org_id: str, old_source: str, new_source: str, at: datetime) -> int:
        """Link the replacement's records to the old source's (same type); how many links."""
        return await self._superseding.sources(org_id, old_source, new_source, at)

    async def forget(self, org_id: str, source_id: str) -> dict[str, int]:
        """Counts of what was removed (for the correction's audit receipt)."""
        return {
            "candidates": await self._candidates.forget_source(org_id, source_id),
            "entities": await self._graph.forget_source(org_id, source_id),
        }
