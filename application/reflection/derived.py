"""Derived records as a retrieval signal, gated like raw memory.

Entity full-text finds promoted records whose space the caller may read;
each is then kept only if the caller may read *every* source it cites,
now (a source hidden or redacted since promotion takes its derived records
with it). The survivors' ``mentions`` give a ranked list of chunk ids that
joins the fused signals as ``entity``, and the records themselves come back
beside the raw hits, each with its raw source ids. ``lists`` adds graph
expansion and relationship facts (``application.reflection.expansion``).

``SUPERSEDES``: a matched record that a newer one replaces, where the reader
may see the newer one, gives its place to the newer record (fetched if the
query did not match it) and follows the others, marked ``superseded_by``;
the newer names it in ``supersedes``, so the trail is kept. Where the reader
cannot see the replacement, the older record stands as it is.
"""

import asyncio
from collections.abc import Sequence

import msgspec

from application.ports import MemoryStore
from application.reflection.expansion import GraphExpansion
from application.reflection.ports import GraphStore
from application.reflection.reading import all_readable
from application.reflection.records import DerivedEntity
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
    superseded_by: str | None = None
    supersedes: list[str] = msgspec.field(default_factory=list)


class DerivedRecall:
    def __init__(
        self, *, store: MemoryStore, graph: GraphStore, expansion: GraphExpansion | None = None
    ) -> None:
        self._store = store
        self._graph = graph
        #: the ``graph`` and ``relation`` lists (k = 1 hop unless the root says otherwise)
        self._expansion = expansion or GraphExpansion(store=store, graph=graph)

    async def relation_list(
        self, org_id: str, query: str, policy: MemoryPolicyContext
    ) -> list[str]:
        """The ``relation`` list (needs no matched record: it runs beside ``hits``)."""
        return await self._expansion.relation_chunks(org_id, query, policy)

    async def hits(
        self, org_id: str, query: str, policy: MemoryPolicyContext, limit: int = _DEPTH
    ) -> list[DerivedHit]:
        """Matching records the caller may read, best first."""
        return (await self.signals(org_id, query, policy, limit))[0]

    async def signals(
        self, org_id: str, query: str, policy: MemoryPolicyContext, limit: int = _DEPTH
    ) -> tuple[list[DerivedHit], dict[str, list[str]]]:
        """The matching records, and the ranked chunk-id lists they add to the fused
        signals: ``entity`` (their mentions) and ``graph`` (expansion from the strongest of
        them, walked while their supersessions and mentions are read)."""
        scored = await self._graph.entity_lexical(
            org_id, meaningful_query(query), limit, readable_spaces(policy)
        )
        if not scored:
            return [], {}
        ids = [s.item_id for s in scored]
        entities = await self._graph.get_entities(org_id, ids)
        kept = await self._readable(org_id, policy, [entities[i] for i in ids if i in entities])
        if not kept:
            return [], {}
        (ordered, newer_of, older_of, mentions), graph = await asyncio.gather(
            self._prefer_newer(org_id, policy, kept),
            self._expansion.chunks(org_id, policy, kept),
        )
        hits = [
            DerivedHit(
                entity_id=e.entity_id,
                type=e.type,
                name=e.name,
                source_ids=list(e.source_ids),
                chunk_ids=mentions.get(e.entity_id, []),
                confidence=e.provenance.confidence,
                transform=e.provenance.transform,
                rank=rank,
                superseded_by=newer_of.get(e.entity_id),
                supersedes=older_of.get(e.entity_id, []),
            )
            for rank, e in enumerate(ordered, start=1)
        ]
        return hits, {"entity": chunk_list(hits), "graph": graph}

    async def _readable(
        self, org_id: str, policy: MemoryPolicyContext, entities: Sequence[DerivedEntity]
    ) -> list[DerivedEntity]:
        """The entities whose every source the caller may read now, order kept."""
        cited = [sid for e in entities for sid in e.source_ids]
        readable = await all_readable(self._store, policy, org_id, cited)
        return [e for e in entities if all(s in readable for s in e.source_ids)]

    async def _prefer_newer(
        self, org_id: str, policy: MemoryPolicyContext, kept: list[DerivedEntity]
    ) -> tuple[list[DerivedEntity], dict[str, str], dict[str, list[str]], dict[str, list[str]]]:
        """The records with each superseded one's place given to its (visible) replacement;
        who replaces whom among them; the chunks each mentions."""
        ids = [e.entity_id for e in kept]
        links, mentions = await asyncio.gather(
            self._graph.supersessions(org_id, ids), self._graph.mentions_of(org_id, ids)
        )
        if not links:
            return kept, {}, {}, mentions
        by_id = {e.entity_id: e for e in kept}
        missing = [x.newer_id for x in links if x.newer_id not in by_id]
        if missing:
            fetched = await self._graph.get_entities(org_id, missing)
            newer = await self._readable(org_id, policy, list(fetched.values()))
            by_id |= {e.entity_id: e for e in newer}
            mentions |= await self._graph.mentions_of(org_id, [e.entity_id for e in newer])
        newer_of: dict[str, str] = {}
        older_of: dict[str, list[str]] = {}
        for x in links:  # edge-id order: a record replaced twice keeps the first
            if x.newer_id in by_id and x.older_id in by_id and x.older_id not in newer_of:
                newer_of[x.older_id] = x.newer_id
                older_of.setdefault(x.newer_id, []).append(x.older_id)
        placed: dict[str, DerivedEntity] = {}
        for e in kept:  # each record's place goes to the newest visible record of its chain
            newest, seen = e.entity_id, {e.entity_id}
            while newest in newer_of and newer_of[newest] not in seen:
                newest = newer_of[newest]
                seen.add(newest)
            placed.setdefault(newest, by_id[newest])
        trail = [e for e in kept if e.entity_id not in placed]
        return [*placed.values(), *trail], newer_of, older_of, mentions


def chunk_list(hits: Sequence[DerivedHit]) -> list[str]:
    """The chunks the records mention, in the records' order: the ``entity`` signal."""
    return list(dict.fromkeys(c for h in hits for c in h.chunk_ids))
