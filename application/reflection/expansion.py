"""Graph expansion and relationship facts: two more ranked chunk lists from derived memory.

``graph``: from the strongest matched records (the seeds), k hops (1 by
default) through ``relates_to`` edges to the records at their other ends,
and through identity: a person, project or artifact named exactly alike in
another promoted record is the same node (promotion merges namesakes of one
type within one space; across spaces and types they stay apart). The chunks
those records mention, in the order they were reached, are the list. It
brings back what a question reaches only through a relationship ("Orion is
led by Priya" + "Priya owns the rollback runbook" answers "what does Orion's
lead own" though the runbook never names Orion).

``relation``: BM25 over the relationship facts, fused with the facts nearest
the query's meaning (``application.reflection.meaning``); the chunks their
two ends mention.

Bounded: at most ``seeds`` seeds, ``fan_out`` edges per hop, and namesakes
looked up for at most ``seeds`` records per hop (``fan_out`` each).
Policy on every hop: an edge is followed only if the caller may read every
source it cites, a record is reached only if it may read every source of
that record; the chunks then pass the pipeline's candidate filter and the
final re-check like every other signal.
"""

import asyncio
from collections.abc import Sequence
from typing import Protocol

from application.ports import MemoryStore
from application.reflection.meaning import Meaning, by_meaning, fused_order
from application.reflection.ports import GraphStore
from application.reflection.reading import all_readable
from application.reflection.records import DerivedEdge, DerivedEntity
from domain.policy import MemoryPolicyContext, readable_spaces
from domain.query_terms import meaningful_query
from domain.reflection.candidates import CandidateType
from domain.scopes import ScopeRef

__all__ = ["GraphExpansion", "Node"]

#: kinds whose name identifies the thing (two records saying "Priya" mean one person)
_NAMED = frozenset(
    {CandidateType.PERSON, CandidateType.PROJECT, CandidateType.ARTIFACT, CandidateType.ENTITY}
)


class Node(Protocol):
    """What expansion needs of a record it starts from (an entity, or a derived hit that
    the caller has already been allowed to see)."""

    @property
    def entity_id(self) -> str: ...

    @property
    def type(self) -> CandidateType: ...

    @property
    def name(self) -> str: ...


def _key(node: Node) -> str:
    return " ".join(node.name.casefold().split())


class GraphExpansion:
    def __init__(
        self,
        *,
        store: MemoryStore,
        graph: GraphStore,
        hops: int = 1,
        seeds: int = 3,
        fan_out: int = 10,
        relations: bool = True,
    ) -> None:
        if not 0 <= hops <= 3 or seeds < 1 or fan_out < 1:
            raise ValueError("expansion is 0 to 3 hops from at least one seed")
        self._store = store
        self._graph = graph
        self._hops, self._seeds, self._fan_out = hops, seeds, fan_out
        #: False: no relationship-fact list (a benchmark's ablation)
        self._relations = relations

    async def _gate(
        self,
        org_id: str,
        policy: MemoryPolicyContext,
        visible: frozenset[ScopeRef],
        entities: Sequence[DerivedEntity],
        edges: Sequence[DerivedEdge] = (),
    ) -> tuple[list[DerivedEntity], list[DerivedEdge]]:
        """The records in a space the caller may read whose every source it may read now
        (one lifecycle read for all of them), order kept."""
        inside = [e for e in entities if e.scope in visible]
        paths = [e for e in edges if e.scope in visible]
        cited = [s for e in inside for s in e.provenance.source_ids]
        cited += [s for e in paths for s in e.provenance.source_ids]
        readable = await all_readable(self._store, policy, org_id, cited)

        def ok(record: DerivedEntity | DerivedEdge) -> bool:
            return all(s in readable for s in record.provenance.source_ids)

        return [e for e in inside if ok(e)], [e for e in paths if ok(e)]

    async def _namesakes(
        self,
        org_id: str,
        policy: MemoryPolicyContext,
        visible: frozenset[ScopeRef],
        nodes: Sequence[Node],
    ) -> list[DerivedEntity]:
        """Readable records named exactly like the first few named ``nodes``."""
        named = [n for n in nodes if n.type in _NAMED][: self._seeds]
        if not named:
            return []
        found = await asyncio.gather(
            *(
                self._graph.entity_lexical(org_id, meaningful_query(n.name), self._fan_out, visible)
                for n in named
            )
        )
        own = {n.entity_id for n in nodes}
        ids = list(dict.fromkeys(s.item_id for hits in found for s in hits if s.item_id not in own))
        same = {_key(n) for n in named}
        fetched = await self._graph.get_entities(org_id, ids)
        alike = [fetched[i] for i in ids if i in fetched and _key(fetched[i]) in same]
        return (await self._gate(org_id, policy, visible, alike))[0]

    async def chunks(
        self, org_id: str, policy: MemoryPolicyContext, seeds: Sequence[Node]
    ) -> list[str]:
        """The ``graph`` list: chunks of the records reached from the seeds, nearest first.
        ``seeds`` must be records the caller may see already (derived hits are)."""
        if not self._hops or not seeds:
            return []
        visible = readable_spaces(policy)
        # (a seed's namesakes need no lookup: they match the query's words as it does)
        frontier: list[Node] = list(seeds[: self._seeds])
        seen = {n.entity_id for n in frontier}
        reached: list[DerivedEntity] = []
        for _ in range(self._hops):
            edges = await self._graph.neighbours(
                org_id, [n.entity_id for n in frontier], self._fan_out
            )
            ends = [end for e in edges for end in (e.from_id, e.to_id) if end not in seen]
            fetched = await self._graph.get_entities(org_id, list(dict.fromkeys(ends)))
            entities, paths = await self._gate(
                org_id, policy, visible, list(fetched.values()), edges
            )
            allowed = {e.entity_id: e for e in entities}
            step = [
                allowed[end]
                for e in paths
                for end in (e.from_id, e.to_id)
                if end in allowed and end not in seen
            ]
            step = list({e.entity_id: e for e in step}.values())
            step += [
                e
                for e in await self._namesakes(org_id, policy, visible, step)
                if e.entity_id not in seen
            ]
            frontier = list({e.entity_id: e for e in step if e.entity_id not in seen}.values())
            seen |= {n.entity_id for n in frontier}
            reached += [e for e in frontier if isinstance(e, DerivedEntity)]
            if not frontier:
                break
        mentions = await self._graph.mentions_of(org_id, [e.entity_id for e in reached])
        return list(dict.fromkeys(c for e in reached for c in mentions.get(e.entity_id, [])))

    async def relation_chunks(
        self,
        org_id: str,
        query: str,
        policy: MemoryPolicyContext,
        limit: int = 20,
        meaning: Meaning | None = None,
    ) -> list[str]:
        """The ``relation`` list: chunks mentioned by the ends of matching, readable facts.

        An edge is written with its two ends from one accepted candidate (one provenance),
        so the edge's own gate (its space, every source) is theirs; the chunks then pass
        the candidate filter and the re-check like any other."""
        if not self._relations:
            return []
        visible = readable_spaces(policy)
        words, near = await asyncio.gather(
            self._graph.edge_lexical(org_id, meaningful_query(query), limit, visible),
            by_meaning(self._graph.edge_vector, org_id, meaning, limit, visible),
        )
        if not words and not near:
            return []
        ids = fused_order(words, near)
        found = await self._graph.get_edges(org_id, ids)
        ordered = [found[i] for i in ids if i in found]
        _, edges = await self._gate(org_id, policy, visible, [], ordered)
        ends = list(dict.fromkeys(end for e in edges for end in (e.from_id, e.to_id)))
        mentions = await self._graph.mentions_of(org_id, ends)
        chunks: list[str] = []
        for edge in edges:
            # what both ends mention first: where the fact is stated (an end merged from
            # several promotions also mentions the other sessions it came from)
            one, other = mentions.get(edge.from_id, []), mentions.get(edge.to_id, [])
            chunks += [c for c in one if c in other] + one + other
        return list(dict.fromkeys(chunks))
