"""The derived graph in dicts: the reference adapter of ``GraphStore``, used by tests.

Entity and relationship-fact full-text are BM25 (k1 = 1.2, b = 0.75) over
the same analyzer as the in-process index (``type: name``; an edge's fact),
computed per query over the organisation's records: a reference, not a fast
path.
Entity and edge vectors are compared by exact cosine similarity over every
record of the organisation holding a vector of the query's model.
"""

from collections.abc import Mapping, Sequence

from adapters.inmemory.graph_scoring import bm25 as _bm25
from adapters.inmemory.graph_scoring import cosine as _cosine
from application.ports.derived import DerivedKind, DerivedText, DerivedVector
from application.ports.derived import entity_text as _text
from application.ports.records import ScoredId, Vector
from application.ports.reflection_records import (
    DerivedEdge,
    DerivedEntity,
    Matched,
    Mention,
    Neighbourhood,
    Supersession,
)
from application.reflection.merging import name_key
from domain.reflection.candidates import CandidateType
from domain.scopes import ScopeRef

__all__ = ["InMemoryGraphStore", "entity_text"]


def entity_text(entity: DerivedEntity) -> str:
    """What entity full-text indexes: its type and its name."""
    return _text(entity.type, entity.name)


class InMemoryGraphStore:
    def __init__(self) -> None:
        self._entities: dict[tuple[str, str], DerivedEntity] = {}
        self._edges: dict[tuple[str, str], DerivedEdge] = {}
        self._mentions: dict[tuple[str, str], list[str]] = {}
        self._supersedes: dict[tuple[str, str], Supersession] = {}
        #: (org, kind, record id) -> (model, vector)
        self._vectors: dict[tuple[str, DerivedKind, str], tuple[str, Vector]] = {}

    async def promote(
        self,
        entities: Sequence[DerivedEntity],
        edges: Sequence[DerivedEdge],
        mentions: Sequence[Mention],
    ) -> None:
        known = {e.entity_id for e in entities}
        for edge in edges:
            for end in (edge.from_id, edge.to_id):
                if end not in known and (edge.org_id, end) not in self._entities:
                    raise ValueError("an edge joins entities that exist")
        for entity in entities:
            self._entities[(entity.org_id, entity.entity_id)] = entity
            self._vectors.pop((entity.org_id, DerivedKind.ENTITY, entity.entity_id), None)
        for edge in edges:
            self._edges[(edge.org_id, edge.edge_id)] = edge
            self._vectors.pop((edge.org_id, DerivedKind.EDGE, edge.edge_id), None)
        orgs = {e.entity_id: e.org_id for e in entities}
        for mention in mentions:
            org = orgs.get(mention.entity_id)
            if org is None:
                raise ValueError("a mention starts at an entity being promoted")
            chunks = self._mentions.setdefault((org, mention.entity_id), [])
            if mention.chunk_id not in chunks:
                chunks.append(mention.chunk_id)

    async def get_entities(
        self, org_id: str, entity_ids: Sequence[str]
    ) -> dict[str, DerivedEntity]:
        return {i: self._entities[(org_id, i)] for i in entity_ids if (org_id, i) in self._entities}

    async def entity_named(
        self, org_id: str, kind: CandidateType, name: str, scope: ScopeRef
    ) -> DerivedEntity | None:
        key = name_key(name)
        same = [
            e
            for (org, _), e in sorted(self._entities.items())
            if org == org_id and e.type is kind and e.scope == scope and name_key(e.name) == key
        ]
        return same[0] if same else None

    async def entity_lexical(
        self, org_id: str, query: str, limit: int, visible: frozenset[ScopeRef] | None
    ) -> list[ScoredId]:
        texts = {
            eid: entity_text(e)
            for (org, eid), e in self._entities.items()
            if org == org_id and (visible is None or e.scope in visible)
        }
        return _bm25(texts, query, limit)

    async def edge_lexical(
        self, org_id: str, query: str, limit: int, visible: frozenset[ScopeRef] | None
    ) -> list[ScoredId]:
        texts = {
            key: e.fact
            for (org, key), e in self._edges.items()
            if org == org_id and (visible is None or e.scope in visible)
        }
        return _bm25(texts, query, limit)

    def _nearest(
        self,
        org_id: str,
        kind: DerivedKind,
        scopes: Mapping[str, ScopeRef],
        vector: Vector,
        limit: int,
        visible: frozenset[ScopeRef] | None,
        model: str,
    ) -> list[ScoredId]:
        scored = [
            (rid, _cosine(found[1], vector))
            for rid, scope in scopes.items()
            if (visible is None or scope in visible)
            and (found := self._vectors.get((org_id, kind, rid))) is not None
            and found[0] == model
        ]
        scored.sort(key=lambda kv: (-kv[1], kv[0]))
        return [ScoredId(rid, score) for rid, score in scored[: max(limit, 0)]]

    async def entity_vector(
        self,
        org_id: str,
        vector: Vector,
        limit: int,
        visible: frozenset[ScopeRef] | None,
        model: str,
    ) -> list[ScoredId]:
        scopes = {eid: e.scope for (org, eid), e in self._entities.items() if org == org_id}
        return self._nearest(org_id, DerivedKind.ENTITY, scopes, vector, limit, visible, model)

    async def edge_vector(
        self,
        org_id: str,
        vector: Vector,
        limit: int,
        visible: frozenset[ScopeRef] | None,
        model: str,
    ) -> list[ScoredId]:
        scopes = {rid: e.scope for (org, rid), e in self._edges.items() if org == org_id}
        return self._nearest(org_id, DerivedKind.EDGE, scopes, vector, limit, visible, model)

    async def unembedded(self, org_id: str, model: str, limit: int) -> list[DerivedText]:
        def missing(kind: DerivedKind, rid: str) -> bool:
            found = self._vectors.get((org_id, kind, rid))
            return found is None or found[0] != model

        texts = [
            DerivedText(kind=DerivedKind.ENTITY, record_id=eid, text=entity_text(e))
            for (org, eid), e in sorted(self._entities.items())
            if org == org_id and missing(DerivedKind.ENTITY, eid)
        ]
        texts += [
            DerivedText(kind=DerivedKind.EDGE, record_id=rid, text=e.fact)
            for (org, rid), e in sorted(self._edges.items())
            if org == org_id and missing(DerivedKind.EDGE, rid)
        ]
        return texts[: max(limit, 0)]

    async def attach_vectors(
        self, org_id: str, model: str, vectors: Sequence[DerivedVector]
    ) -> None:
        for v in vectors:
            table = self._entities if v.kind is DerivedKind.ENTITY else self._edges
            if (org_id, v.record_id) in table:
                self._vectors[(org_id, v.kind, v.record_id)] = (model, list(v.vector))

    async def get_edges(self, org_id: str, edge_ids: Sequence[str]) -> dict[str, DerivedEdge]:
        return {i: self._edges[(org_id, i)] for i in edge_ids if (org_id, i) in self._edges}

    async def recent_entities(
        self,
        org_id: str,
        types: frozenset[CandidateType],
        visible: frozenset[ScopeRef] | None,
        limit: int,
    ) -> list[DerivedEntity]:
        found = [
            e
            for (org, _), e in self._entities.items()
            if org == org_id and e.type in types and (visible is None or e.scope in visible)
        ]
        found.sort(key=lambda e: e.entity_id)
        found.sort(key=lambda e: e.provenance.valid_from, reverse=True)
        return found[: max(limit, 0)]

    async def entities_citing(self, org_id: str, source_ids: Sequence[str]) -> list[DerivedEntity]:
        wanted = set(source_ids)
        return sorted(
            (
                e
                for (org, _), e in self._entities.items()
                if org == org_id and wanted.intersection(e.source_ids)
            ),
            key=lambda e: e.entity_id,
        )

    async def neighbours(
        self, org_id: str, entity_ids: Sequence[str], limit: int
    ) -> list[DerivedEdge]:
        ends = set(entity_ids)
        found = [
            e
            for (org, _), e in self._edges.items()
            if org == org_id and (e.from_id in ends or e.to_id in ends)
        ]
        return sorted(found, key=lambda e: e.edge_id)[: max(limit, 0)]

    async def neighbourhood(
        self,
        org_id: str,
        entity_ids: Sequence[str],
        limit: int,
        visible: frozenset[ScopeRef] | None,
    ) -> Neighbourhood:
        edges = await self.neighbours(org_id, entity_ids, limit)
        ends = await self.get_entities(
            org_id, list(dict.fromkeys(i for e in edges for i in (e.from_id, e.to_id)))
        )
        keys = list(dict.fromkeys(name_key(e.name) for e in ends.values()))
        named: dict[str, list[str]] = {key: [] for key in keys}
        for (org, eid), e in sorted(self._entities.items()):
            if org == org_id and (visible is None or e.scope in visible):
                named.get(name_key(e.name), []).append(eid)
        namesakes = [eid for ids in named.values() for eid in ids[: max(limit, 0)]]
        entities = ends | await self.get_entities(org_id, namesakes)
        mentions = await self.mentions_of(org_id, list(entities))
        return Neighbourhood(edges=edges, entities=entities, namesakes=namesakes, mentions=mentions)

    async def matched(
        self,
        org_id: str,
        entity_ids: Sequence[str],
        edge_ids: Sequence[str],
        start: Sequence[str],
        limit: int,
        visible: frozenset[ScopeRef] | None,
    ) -> Matched:
        edges = await self.get_edges(org_id, edge_ids)
        ends = [i for e in edges.values() for i in (e.from_id, e.to_id)]
        empty = Neighbourhood(edges=[], entities={}, namesakes=[], mentions={})
        return Matched(
            entities=await self.get_entities(org_id, entity_ids),
            edges=edges,
            mentions=await self.mentions_of(org_id, list(dict.fromkeys([*entity_ids, *ends]))),
            links=await self.supersessions(org_id, entity_ids),
            hood=await self.neighbourhood(org_id, start, limit, visible) if start else empty,
        )

    async def supersede(self, links: Sequence[Supersession]) -> None:
        for link in links:
            for end in (link.newer_id, link.older_id):
                if (link.org_id, end) not in self._entities:
                    raise ValueError("a supersession joins entities that exist")
        for link in links:
            self._supersedes.setdefault((link.org_id, link.edge_id), link)

    async def supersessions(self, org_id: str, entity_ids: Sequence[str]) -> list[Supersession]:
        ends = set(entity_ids)
        found = [
            link
            for (org, _), link in self._supersedes.items()
            if org == org_id and (link.newer_id in ends or link.older_id in ends)
        ]
        return sorted(found, key=lambda link: link.edge_id)

    async def mentions_of(self, org_id: str, entity_ids: Sequence[str]) -> dict[str, list[str]]:
        return {
            i: list(self._mentions[(org_id, i)])
            for i in entity_ids
            if (org_id, i) in self._mentions
        }

    async def edges_of(self, org_id: str, entity_id: str) -> list[DerivedEdge]:
        found = [
            e
            for (org, _), e in self._edges.items()
            if org == org_id and entity_id in (e.from_id, e.to_id)
        ]
        return sorted(found, key=lambda e: e.edge_id)

    async def forget_source(self, org_id: str, source_id: str) -> int:
        gone = {
            eid
            for (org, eid), e in self._entities.items()
            if org == org_id and source_id in e.source_ids
        }
        for eid in gone:
            del self._entities[(org_id, eid)]
            self._mentions.pop((org_id, eid), None)
        for key in [
            k
            for k, e in self._edges.items()
            if k[0] == org_id
            and (e.from_id in gone or e.to_id in gone or source_id in e.provenance.source_ids)
        ]:
            del self._edges[key]
        for key in [
            k
            for k, link in self._supersedes.items()
            if k[0] == org_id and (link.newer_id in gone or link.older_id in gone)
        ]:
            del self._supersedes[key]
        self._drop_stale_vectors(org_id)
        return len(gone)

    def _drop_stale_vectors(self, org_id: str) -> None:
        for key in [k for k in self._vectors if k[0] == org_id]:
            table = self._entities if key[1] is DerivedKind.ENTITY else self._edges
            if (org_id, key[2]) not in table:
                del self._vectors[key]

    async def drop_graph(self, org_id: str) -> None:
        for table in (self._entities, self._edges, self._mentions, self._supersedes):
            for key in [k for k in table if k[0] == org_id]:
                del table[key]
        self._drop_stale_vectors(org_id)
