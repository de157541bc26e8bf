"""Derived records as a retrieval signal, gated like raw memory.

Entity full-text finds promoted records whose space the caller may read;
each is then kept only if the caller may read *every* source it cites,
now (a source hidden or redacted since promotion takes its derived records
with it). The survivors' ``mentions`` give a ranked list of chunk ids that
joins the fused signals as ``entity``, and the records themselves come back
beside the raw hits, each with its raw source ids. ``lists`` adds graph
expansion and relationship facts (``application.reflection.expansion``).

By meaning: entities whose vector is near the query's (``meaning``: the
vector the pipeline embedded, never a second embedding) join those matched
by words, in fused order, through the same gate. Their mentions form the
``entity_vector`` list, so a chunk says in words that it supports a record
matched by meaning; ``separate_vector_list=False`` folds them into
``entity`` instead (measured in benchmarks/RESULTS.md).

``SUPERSEDES``: a matched record that a newer one replaces, where the reader
may see the newer one, gives its place to the newer record (fetched if the
query did not match it) and follows the others, marked ``superseded_by``;
the newer names it in ``supersedes``, so the trail is kept. Where the reader
cannot see the replacement, the older record stands as it is.
"""

import asyncio
from collections.abc import Iterable, Sequence

from application.ports import MemoryStore
from application.ports.derived import DerivedHit
from application.ports.records import ScoredId
from application.ports.reflection import GraphStore
from application.ports.reflection_records import DerivedEntity, Supersession
from application.reflection.expansion import FirstHop, GraphExpansion
from application.reflection.meaning import Meaning, by_meaning, fused_order
from application.reflection.vectors import DerivedVectors
from application.trust.reading import all_readable
from domain.policy import MemoryPolicyContext, readable_spaces
from domain.query_words import QueryWords, query_words
from domain.signals import Signal

__all__ = ["DerivedRecall", "chunk_list"]

#: entities one query considers
_DEPTH = 20
#: seconds after an organisation's first derived search that the vector pass starts: its
#: first read (the root's namespaces, ~2-5 ms on disk) would queue before the search's own
_RESUME_AFTER = 1.0


class DerivedRecall:
    def __init__(
        self,
        *,
        store: MemoryStore,
        graph: GraphStore,
        expansion: GraphExpansion | None = None,
        vectors: DerivedVectors | None = None,
        separate_vector_list: bool = True,
        by_meaning: bool = True,
        one_read: bool = True,
    ) -> None:
        self._store = store
        self._graph = graph
        #: the ``graph`` and ``relation`` lists (k = 1 hop unless the root says otherwise)
        self._expansion = expansion or GraphExpansion(store=store, graph=graph)
        #: asked once per organisation and process to embed what was left without a vector
        self._vectors = vectors
        self._resumed: set[str] = set()
        self._separate = separate_vector_list
        #: False: records and facts by words only (a benchmark's ablation)
        self._by_meaning = by_meaning
        #: False: ``lists`` reads as ``signals`` and ``relation_list`` do on their own (the
        #: benchmark's A/B arm)
        self.one_read = one_read

    async def relation_list(
        self,
        org_id: str,
        query: str | QueryWords,
        policy: MemoryPolicyContext,
        meaning: Meaning | None = None,
    ) -> list[str]:
        """The ``relation`` list (needs no matched record: it runs beside ``hits``)."""
        meaning = meaning if self._by_meaning else None
        return await self._expansion.relation_chunks(org_id, query, policy, meaning=meaning)

    async def hits(
        self, org_id: str, query: str, policy: MemoryPolicyContext, limit: int = _DEPTH
    ) -> list[DerivedHit]:
        """Matching records the caller may read, best first."""
        return (await self.signals(org_id, query, policy, limit))[0]

    def _resume(self, org_id: str) -> None:
        if self._vectors is not None and org_id not in self._resumed:
            self._resumed.add(org_id)
            self._vectors.schedule(org_id, after=_RESUME_AFTER)

    async def lists(
        self,
        org_id: str,
        query: str | QueryWords,
        policy: MemoryPolicyContext,
        meaning: Meaning | None = None,
    ) -> tuple[list[DerivedHit], dict[str, list[str]]]:
        """``signals`` and ``relation_list`` together (``relation`` joins the lists): one
        graph read for the matched records and facts, what they mention, their
        supersessions and the first hop (``GraphStore.matched``), then one lifecycle read
        for every source any of them cites, gating both. Two round trips deep, as
        ``signals`` was, but two in all instead of eight (benchmarks/RESULTS.md).
        ``one_read=False``: the two read on their own, side by side."""
        if not self.one_read:
            (apart, of_hits), of_facts = await asyncio.gather(
                self.signals(org_id, query, policy, meaning=meaning),
                self.relation_list(org_id, query, policy, meaning=meaning),
            )
            return apart, {**of_hits, Signal.RELATION: of_facts}
        self._resume(org_id)
        visible = readable_spaces(policy)
        meaning = meaning if self._by_meaning else None
        question = query_words(query)
        words, near, fact_ids = await asyncio.gather(
            self._graph.entity_lexical(org_id, question.meaningful, _DEPTH, visible),
            by_meaning(self._graph.entity_vector, org_id, meaning, _DEPTH, visible),
            self._expansion.relation_matches(org_id, question, visible, _DEPTH, meaning),
        )
        ids = fused_order(words, near) if words or near else []
        if not ids and not fact_ids:
            return [], {Signal.RELATION: []}
        expansion = self._expansion
        start = expansion.start(ids)
        read = await self._graph.matched(org_id, ids, fact_ids, start, expansion.fan_out, visible)
        first = FirstHop(start=start, hood=read.hood) if start else None
        found = [read.entities[i] for i in ids if i in read.entities]
        facts = [read.edges[i] for i in fact_ids if i in read.edges]
        cited = [sid for e in found for sid in e.source_ids]
        cited += first.cited(visible) if first is not None else []
        cited += expansion.cited(visible, facts)
        readable = await all_readable(self._store, policy, org_id, cited)
        relation = expansion.relation_from(visible, readable, facts, read.mentions)
        hits, signals = await self._gated(
            org_id, policy, (words, near), found, read.mentions, read.links, first, readable
        )
        return hits, {**signals, Signal.RELATION: relation}

    async def signals(
        self,
        org_id: str,
        query: str | QueryWords,
        policy: MemoryPolicyContext,
        limit: int = _DEPTH,
        meaning: Meaning | None = None,
    ) -> tuple[list[DerivedHit], dict[str, list[str]]]:
        """The matching records, and the ranked chunk-id lists they add to the fused
        signals: ``entity`` (their mentions), ``entity_vector`` (those of the records
        matched by meaning) and ``graph`` (expansion from the strongest of them, walked
        while their supersessions and mentions are read)."""
        self._resume(org_id)
        visible = readable_spaces(policy)
        meaning = meaning if self._by_meaning else None
        words, near = await asyncio.gather(
            self._graph.entity_lexical(org_id, query_words(query).meaningful, limit, visible),
            by_meaning(self._graph.entity_vector, org_id, meaning, limit, visible),
        )
        if not words and not near:
            return [], {}
        ids = fused_order(words, near)
        # the records, their mentions, their supersessions and the first hop of expansion
        # side by side, before the gate, then one gate for all of them: two round trips
        # deep instead of seven (what the gate refuses was read for nothing, never used)
        entities, mentions, links, first = await asyncio.gather(
            self._graph.get_entities(org_id, ids),
            self._graph.mentions_of(org_id, ids),
            self._graph.supersessions(org_id, ids),
            self._expansion.first_hop(org_id, ids, visible),
        )
        found = [entities[i] for i in ids if i in entities]
        cited = [sid for e in found for sid in e.source_ids]
        cited += first.cited(visible) if first is not None else []
        readable = await all_readable(self._store, policy, org_id, cited)
        return await self._gated(
            org_id, policy, (words, near), found, mentions, links, first, readable
        )

    async def _gated(
        self,
        org_id: str,
        policy: MemoryPolicyContext,
        matches: tuple[list[ScoredId], list[ScoredId]],
        found: list[DerivedEntity],
        mentions: dict[str, list[str]],
        links: list[Supersession],
        first: FirstHop | None,
        readable: set[str],
    ) -> tuple[list[DerivedHit], dict[str, list[str]]]:
        """The hits and their lists from the matched records (``found``, best first) that
        the caller may read: every source in ``readable`` (the sources readable now)."""
        kept = [e for e in found if all(s in readable for s in e.source_ids)]
        if not kept:
            return [], {}
        own = {e.entity_id for e in kept}
        links = [x for x in links if x.newer_id in own or x.older_id in own]
        (ordered, newer_of, older_of, mentions), graph = await asyncio.gather(
            self._prefer_newer(org_id, policy, kept, links, mentions),
            self._expansion.chunks(org_id, policy, kept, first, readable),
        )
        # a record's place, and how it matched, go to the newest visible record replacing it
        words, near = matches
        by_words, close = {h.item_id for h in words}, {h.item_id for h in near}
        for e in kept:
            newest = _newest(e.entity_id, newer_of)
            for matched in (by_words, close):
                if e.entity_id in matched:
                    matched.add(newest)
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
                by_meaning=e.entity_id in close,
                by_words=e.entity_id in by_words,
            )
            for rank, e in enumerate(ordered, start=1)
        ]
        if not self._separate:
            return hits, {Signal.ENTITY: chunk_list(hits), Signal.GRAPH: graph}
        return hits, {
            Signal.ENTITY: chunk_list(h for h in hits if h.entity_id in by_words),
            Signal.ENTITY_VECTOR: chunk_list(h for h in hits if h.by_meaning),
            Signal.GRAPH: graph,
        }

    async def _readable(
        self, org_id: str, policy: MemoryPolicyContext, entities: Sequence[DerivedEntity]
    ) -> list[DerivedEntity]:
        """The entities whose every source the caller may read now, order kept."""
        cited = [sid for e in entities for sid in e.source_ids]
        readable = await all_readable(self._store, policy, org_id, cited)
        return [e for e in entities if all(s in readable for s in e.source_ids)]

    async def _prefer_newer(
        self,
        org_id: str,
        policy: MemoryPolicyContext,
        kept: list[DerivedEntity],
        links: list[Supersession],
        mentions: dict[str, list[str]],
    ) -> tuple[list[DerivedEntity], dict[str, str], dict[str, list[str]], dict[str, list[str]]]:
        """The records with each superseded one's place given to its (visible) replacement;
        who replaces whom among them; the chunks each mentions (``links``: the
        ``SUPERSEDES`` edges from or to any of them, in edge-id order; ``mentions``: theirs)."""
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
            newest = _newest(e.entity_id, newer_of)
            placed.setdefault(newest, by_id[newest])
        trail = [e for e in kept if e.entity_id not in placed]
        return [*placed.values(), *trail], newer_of, older_of, mentions


def _newest(entity_id: str, newer_of: dict[str, str]) -> str:
    """The end of the record's chain of replacements (each link followed once)."""
    newest, seen = entity_id, {entity_id}
    while newest in newer_of and newer_of[newest] not in seen:
        newest = newer_of[newest]
        seen.add(newest)
    return newest


def chunk_list(hits: Iterable[DerivedHit]) -> list[str]:
    """The chunks the records mention, in the records' order: the ``entity`` signal."""
    return list(dict.fromkeys(c for h in hits for c in h.chunk_ids))
