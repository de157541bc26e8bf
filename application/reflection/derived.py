"""Derived records as a retrieval signal, gated like raw memory.

Entity full-text finds promoted records whose space the caller may read;
each is then kept only if the caller may read *every* source it cites,
now (a source hidden or redacted since promotion takes its derived records
with it). The survivors' ``mentions`` give a ranked list of chunk ids that
joins the fused signals as ``entity``, and the records themselves come back
beside the raw hits, each with its raw source ids.
"""

from collections.abc import Sequence

import msgspec

from application.ports import MemoryStore
from application.reflection.ports import GraphStore
from application.reflection.reading import all_readable
from domain.policy import MemoryPolicyContext, readable_spaces
from domain.query_terms import meaningful_query
from domain.reflection.candidates import CandidateType

__all__ = ["DerivedHit", "DerivedRecall", "chunk_list"]

#: entities one query considers
_DEPTH = 20


class DerivedHit(msgspec.Struct, frozen=True, kw_only=True):
    """A promoted record that matched: what it states, where from, what supports it."""

    entity_id: str
    type: CandidateType
    name: str
    source_ids: list[str]
    chunk_ids: list[str]
    confidence: float
    transform: str
    rank: int


class DerivedRecall:
    def __init__(self, *, store: MemoryStore, graph: GraphStore) -> None:
        self._store = store
        self._graph = graph

    async def hits(
        self, org_id: str, query: str, policy: MemoryPolicyContext, limit: int = _DEPTH
    ) -> list[DerivedHit]:
        """Matching records the caller may read, best first."""
        scored = await self._graph.entity_lexical(
            org_id, meaningful_query(query), limit, readable_spaces(policy)
        )
        if not scored:
            return []
        ids = [s.item_id for s in scored]
        entities = await self._graph.get_entities(org_id, ids)
        cited = [sid for e in entities.values() for sid in e.source_ids]
        readable = await all_readable(self._store, policy, org_id, cited)
        kept = [
            entities[i]
            for i in ids
            if i in entities and all(s in readable for s in entities[i].source_ids)
        ]
        mentions = await self._graph.mentions_of(org_id, [e.entity_id for e in kept])
        return [
            DerivedHit(
                entity_id=e.entity_id,
                type=e.type,
                name=e.name,
                source_ids=list(e.source_ids),
                chunk_ids=mentions.get(e.entity_id, []),
                confidence=e.provenance.confidence,
                transform=e.provenance.transform,
                rank=rank,
            )
            for rank, e in enumerate(kept, start=1)
        ]


def chunk_list(hits: Sequence[DerivedHit]) -> list[str]:
    """The chunks the records mention, in the records' order: the ``entity`` signal."""
    return list(dict.fromkeys(c for h in hits for c in h.chunk_ids))
