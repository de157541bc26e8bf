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
taken for at most ``seeds`` records per hop (``fan_out`` each).
Policy on every hop: an edge is followed only if the caller may read every
source it cites, a record is reached only if it may read every source of
that record; the chunks then pass the pipeline's candidate filter and the
final re-check like every other signal.

Round trips (each waits for the one before on the search path): a hop is one
graph read (``GraphStore.neighbourhood``: edges, ends, namesakes by name key,
mentions) and one lifecycle read for every source those records cite; the
first hop is read with the matched records and facts themselves (one
``GraphStore.matched`` read, ``DerivedRecall.lists``) and gated with them by
one lifecycle read. It used to be about seven a hop (benchmarks/RESULTS.md).
"""

import asyncio
from collections.abc import Sequence
from typing import Protocol

import msgspec

from application.ports import MemoryStore
from application.ports.reflection import GraphStore
from application.ports.reflection_records import DerivedEdge, DerivedEntity, Neighbourhood
from application.reflection.meaning import Meaning, by_meaning, fused_order
from application.trust.reading import all_readable
from domain.policy import MemoryPolicyContext, readable_spaces
from domain.query_words import QueryWords, query_words
from domain.reflection.candidates import CandidateType
from domain.scopes import ScopeRef

__all__ = ["FirstHop", "GraphExpansion", "Node"]

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


class FirstHop(msgspec.Struct, frozen=True, kw_only=True):
    """The first hop read from the records the seeds will be if the gate keeps the first
    few matches (it usually does): read beside the matches themselves, one round trip
    earlier. Used only when the gated seeds are exactly ``start``; never trusted ungated."""

    start: tuple[str, ...]
    hood: Neighbourhood

    def cited(self, visible: frozenset[ScopeRef]) -> list[str]:
        """The sources its records in readable spaces cite (for the caller's one gate)."""
        records: list[DerivedEntity | DerivedEdge] = [
            *self.hood.edges,
            *self.hood.entities.values(),
        ]
        return [s for r in records if r.scope in visible for s in r.provenance.source_ids]


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

    async def _readable(
        self,
        org_id: str,
        policy: MemoryPolicyContext,
        visible: frozenset[ScopeRef],
        records: Sequence[DerivedEntity | DerivedEdge],
    ) -> set[str]:
        """The sources the records in readable spaces cite that the caller may read now
        (one lifecycle read for all of them)."""
        cited = [s for r in records if r.scope in visible for s in r.provenance.source_ids]
        return await all_readable(self._store, policy, org_id, cited) if cited else set()

    @staticmethod
    def _passes(
        visible: frozenset[ScopeRef], readable: set[str], record: DerivedEntity | DerivedEdge
    ) -> bool:
        """In a space the caller may read, and every source it cites readable now."""
        return record.scope in visible and all(s in readable for s in record.provenance.source_ids)

    def _namesakes(
        self,
        hood: Neighbourhood,
        visible: frozenset[ScopeRef],
        readable: set[str],
        nodes: Sequence[Node],
    ) -> list[DerivedEntity]:
        """Readable records named exactly like the first few named ``nodes``, name by name
        (the neighbourhood read them with the hop)."""
        named = [n for n in nodes if n.type in _NAMED][: self._seeds]
        own = {n.entity_id for n in nodes}
        alike: dict[str, list[DerivedEntity]] = {}
        for i in hood.namesakes:
            found = hood.entities.get(i)
            if found is not None and i not in own:
                alike.setdefault(_key(found), []).append(found)
        keys = dict.fromkeys(_key(n) for n in named)
        same = [e for k in keys for e in alike.get(k, [])]
        return [e for e in same if self._passes(visible, readable, e)]

    async def first_hop(
        self, org_id: str, matched: Sequence[str], visible: frozenset[ScopeRef]
    ) -> FirstHop | None:
        """The first hop from the first few ``matched`` records, before they are gated
        (None: no expansion). ``chunks`` uses it only if they are the seeds after all."""
        start = self.start(matched)
        if not start:
            return None
        hood = await self._graph.neighbourhood(org_id, start, self._fan_out, visible)
        return FirstHop(start=start, hood=hood)

    async def chunks(
        self,
        org_id: str,
        policy: MemoryPolicyContext,
        seeds: Sequence[Node],
        first: FirstHop | None = None,
        readable: set[str] | None = None,
    ) -> list[str]:
        """The ``graph`` list: chunks of the records reached from the seeds, nearest first.
        ``seeds`` must be records the caller may see already (derived hits are).

        Two round trips a hop: the neighbourhood (edges, ends, namesakes, mentions) and
        one lifecycle read for every source they cite; none for the first hop when
        ``first`` started from these seeds and ``readable`` (the sources readable now)
        answers for every source it cites."""
        if not self._hops or not seeds:
            return []
        visible = readable_spaces(policy)
        # (a seed's namesakes need no lookup: they match the query's words as it does)
        frontier: list[Node] = list(seeds[: self._seeds])
        seen = {n.entity_id for n in frontier}
        reached: list[DerivedEntity] = []
        mentions: dict[str, list[str]] = {}
        for _ in range(self._hops):
            start = tuple(n.entity_id for n in frontier)
            if first is not None and readable is not None and first.start == start:
                hood = first.hood
            else:
                hood = await self._graph.neighbourhood(org_id, start, self._fan_out, visible)
                readable = await self._readable(
                    org_id, policy, visible, [*hood.edges, *hood.entities.values()]
                )
            first = None
            mentions |= hood.mentions
            ends = [end for e in hood.edges for end in (e.from_id, e.to_id) if end not in seen]
            fetched = [hood.entities[i] for i in dict.fromkeys(ends) if i in hood.entities]
            allowed = {e.entity_id: e for e in fetched if self._passes(visible, readable, e)}
            step = [
                allowed[end]
                for e in hood.edges
                if self._passes(visible, readable, e)
                for end in (e.from_id, e.to_id)
                if end in allowed and end not in seen
            ]
            step = list({e.entity_id: e for e in step}.values())
            step += [
                e for e in self._namesakes(hood, visible, readable, step) if e.entity_id not in seen
            ]
            frontier = list({e.entity_id: e for e in step if e.entity_id not in seen}.values())
            seen |= {n.entity_id for n in frontier}
            reached += [e for e in frontier if isinstance(e, DerivedEntity)]
            if not frontier:
                break
        return list(dict.fromkeys(c for e in reached for c in mentions.get(e.entity_id, [])))

    @property
    def fan_out(self) -> int:
        return self._fan_out

    def start(self, matched: Sequence[str]) -> tuple[str, ...]:
        """The records the first hop starts from if the gate keeps the first few matches
        (none: no expansion)."""
        return tuple(matched[: self._seeds]) if self._hops else ()

    async def relation_matches(
        self,
        org_id: str,
        question: QueryWords,
        visible: frozenset[ScopeRef],
        limit: int = 20,
        meaning: Meaning | None = None,
    ) -> list[str]:
        """The facts matching the query by words and by meaning, fused (not gated yet)."""
        if not self._relations:
            return []
        words, near = await asyncio.gather(
            self._graph.edge_lexical(org_id, question.meaningful, limit, visible),
            by_meaning(self._graph.edge_vector, org_id, meaning, limit, visible),
        )
        return fused_order(words, near) if words or near else []

    @staticmethod
    def cited(visible: frozenset[ScopeRef], facts: Sequence[DerivedEdge]) -> list[str]:
        """The sources the facts in readable spaces cite (for the caller's one gate)."""
        return [s for e in facts if e.scope in visible for s in e.provenance.source_ids]

    def relation_from(
        self,
        visible: frozenset[ScopeRef],
        readable: set[str],
        facts: Sequence[DerivedEdge],
        mentions: dict[str, list[str]],
    ) -> list[str]:
        """The ``relation`` list from the matched facts (best first), the sources readable
        now and what the facts' ends mention.

        An edge is written with its two ends from one accepted candidate (one provenance),
        so the edge's own gate (its space, every source) is theirs; the chunks then pass
        the candidate filter and the re-check like any other."""
        chunks: list[str] = []
        for edge in facts:
            if not self._passes(visible, readable, edge):
                continue
            # what both ends mention first: where the fact is stated (an end merged from
            # several promotions also mentions the other sessions it came from)
            one, other = mentions.get(edge.from_id, []), mentions.get(edge.to_id, [])
            chunks += [c for c in one if c in other] + one + other
        return list(dict.fromkeys(chunks))

    async def relation_chunks(
        self,
        org_id: str,
        query: str | QueryWords,
        policy: MemoryPolicyContext,
        limit: int = 20,
        meaning: Meaning | None = None,
    ) -> list[str]:
        """The ``relation`` list: chunks mentioned by the ends of matching, readable facts,
        read on their own (``DerivedRecall.lists`` reads them with the matched records)."""
        visible = readable_spaces(policy)
        ids = await self.relation_matches(org_id, query_words(query), visible, limit, meaning)
        if not ids:
            return []
        found = await self._graph.get_edges(org_id, ids)
        ordered = [found[i] for i in ids if i in found]
        # the gate's lifecycle read and the ends' mentions side by side (the mentions of
        # an edge the gate refuses are read for nothing, and never used)
        ends = list(dict.fromkeys(end for e in ordered for end in (e.from_id, e.to_id)))
        readable, mentions = await asyncio.gather(
            self._readable(org_id, policy, visible, ordered),
            self._graph.mentions_of(org_id, ends),
        )
        return self.relation_from(visible, readable, ordered, mentions)
