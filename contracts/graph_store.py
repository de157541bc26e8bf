"""The behaviour every ``GraphStore`` adapter owes promotion and derived retrieval.

Promoted entities and edges read back equal (provenance included); entity
full-text matches type and name, ranks better matches first and never
returns an entity outside the ``visible`` spaces; mentions and edges are
found from either end; organisations never see each other's graph. Vectors
attached to entities and edges rank them by cosine similarity, only among
records of the query's model in the ``visible`` spaces, and go with them.

Usage: subclass it and provide a ``graph`` fixture (an adapter whose
organisations ``org-a`` and ``org-b`` exist where that matters)::

    class TestMyGraph(GraphStoreContract):
        @pytest.fixture
        def graph(self) -> GraphStore: ...
"""

from datetime import UTC, datetime, timedelta

import msgspec

from application.ports.derived import DerivedKind, DerivedVector
from application.ports.reflection import GraphStore
from application.ports.reflection_records import (
    DerivedEdge,
    DerivedEntity,
    Mention,
    Provenance,
    Supersession,
)
from contracts.graph_walk import GraphWalkContract
from domain.reflection.candidates import CandidateType, Span
from domain.scopes import MemoryScope, ScopeRef

__all__ = ["GraphStoreContract", "sample_edge", "sample_entity", "supersession"]

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
ANA = ScopeRef(MemoryScope.PRIVATE, "ana")
ALPHA = ScopeRef(MemoryScope.PROJECT, "alpha")


def _provenance(candidate_id: str = "c1", valid_from: datetime = T0) -> Provenance:
    return Provenance(
        source_ids=("s1",),
        source_hashes={"s1": "h1"},
        transform="rules@1",
        decision_id="audit1",
        decision_reason="allowed",
        candidate_id=candidate_id,
        promoted_by="ana",
        promoted_at=T0 + timedelta(hours=1),
        valid_from=valid_from,
        confidence=0.9,
    )


def sample_entity(
    entity_id: str = "e1",
    name: str = "We decided to go with SurrealDB for storage.",
    kind: CandidateType = CandidateType.DECISION,
    scope: ScopeRef = ANA,
    org_id: str = "org-a",
    valid_from: datetime = T0,
) -> DerivedEntity:
    return DerivedEntity(
        entity_id=entity_id,
        org_id=org_id,
        type=kind,
        name=name,
        scope=scope,
        spans=(Span(source_id="s1", start=0, end=44),),
        provenance=_provenance(valid_from=valid_from),
    )


def sample_edge(
    from_id: str,
    to_id: str,
    edge_id: str = "r1",
    fact: str = "Maya decided: go with SurrealDB",
    scope: ScopeRef = ANA,
) -> DerivedEdge:
    return DerivedEdge(
        edge_id=edge_id,
        org_id="org-a",
        from_id=from_id,
        to_id=to_id,
        kind="decided",
        fact=fact,
        scope=scope,
        provenance=_provenance(),
    )


def supersession(newer: str, older: str, edge_id: str = "x1") -> Supersession:
    return Supersession(
        edge_id=edge_id,
        org_id="org-a",
        newer_id=newer,
        older_id=older,
        reason="candidate c2 accepted",
        source_ids=("s2",),
        valid_from=T0 + timedelta(days=1),
    )


class GraphStoreContract(GraphWalkContract):
    """Subclass (as ``Test...``) and provide a ``graph`` fixture (``neighbourhood``: see
    ``contracts.graph_walk``)."""

    async def test_promoted_records_read_back_equal(self, graph: GraphStore) -> None:
        maya = sample_entity("p1", "Maya", CandidateType.PERSON)
        decision = sample_entity()
        edge = sample_edge("p1", "e1")
        await graph.promote([maya, decision], [edge], [Mention(entity_id="e1", chunk_id="k1")])
        found = await graph.get_entities("org-a", ["e1", "p1", "nope"])
        assert found == {"e1": decision, "p1": maya}
        assert found["e1"].provenance.promoted_at.utcoffset() == timedelta(0)
        assert await graph.edges_of("org-a", "p1") == [edge]
        assert await graph.edges_of("org-a", "e1") == [edge]
        assert await graph.mentions_of("org-a", ["e1", "p1"]) == {"e1": ["k1"]}

    async def test_entity_full_text_matches_type_and_name(self, graph: GraphStore) -> None:
        await graph.promote(
            [
                sample_entity(),
                sample_entity("e2", "Ship the release on Fridays.", CandidateType.TASK),
                sample_entity("e3", "Storage engine benchmarks are due.", CandidateType.TASK),
            ],
            [],
            [],
        )
        by_name = await graph.entity_lexical("org-a", "SurrealDB storage", 10, None)
        assert [h.item_id for h in by_name][:2] == ["e1", "e3"]
        assert by_name[0].score >= by_name[1].score
        by_type = await graph.entity_lexical("org-a", "decision", 10, None)
        assert [h.item_id for h in by_type] == ["e1"]
        assert len(await graph.entity_lexical("org-a", "storage", 1, None)) == 1
        assert await graph.entity_lexical("org-a", "zebra", 10, None) == []

    async def test_entity_full_text_stays_in_visible_spaces(self, graph: GraphStore) -> None:
        await graph.promote([sample_entity(), sample_entity("e2", scope=ALPHA)], [], [])
        only_alpha = await graph.entity_lexical("org-a", "SurrealDB", 10, frozenset({ALPHA}))
        assert [h.item_id for h in only_alpha] == ["e2"]
        assert await graph.entity_lexical("org-a", "SurrealDB", 10, frozenset()) == []

    async def test_forgetting_a_source_removes_what_cites_it(self, graph: GraphStore) -> None:
        other = msgspec.structs.replace(
            sample_entity("e9", "Kept: another source."),
            provenance=msgspec.structs.replace(
                _provenance(), source_ids=("s2",), source_hashes={"s2": "h2"}
            ),
        )
        await graph.promote(
            [sample_entity("p1", "Maya", CandidateType.PERSON), sample_entity(), other],
            [sample_edge("p1", "e1")],
            [Mention(entity_id="e1", chunk_id="k1"), Mention(entity_id="e9", chunk_id="k2")],
        )
        assert await graph.forget_source("org-a", "s1") == 2
        assert list(await graph.get_entities("org-a", ["p1", "e1", "e9"])) == ["e9"]
        assert await graph.edges_of("org-a", "e9") == []
        assert await graph.mentions_of("org-a", ["e1", "e9"]) == {"e9": ["k2"]}
        assert [h.item_id for h in await graph.entity_lexical("org-a", "Maya", 5, None)] == []
        assert await graph.forget_source("org-b", "s1") == 0

    async def test_organisations_are_isolated(self, graph: GraphStore) -> None:
        await graph.promote([sample_entity()], [], [Mention(entity_id="e1", chunk_id="k1")])
        assert await graph.get_entities("org-b", ["e1"]) == {}
        assert await graph.entity_lexical("org-b", "SurrealDB", 10, None) == []
        assert await graph.mentions_of("org-b", ["e1"]) == {}
        await graph.drop_graph("org-a")
        assert await graph.get_entities("org-a", ["e1"]) == {}
        assert await graph.mentions_of("org-a", ["e1"]) == {}

    async def test_recent_entities_newest_first_by_type_and_space(self, graph: GraphStore) -> None:
        day = timedelta(days=1)
        await graph.promote(
            [
                sample_entity("e1", valid_from=T0),
                sample_entity("e2", "Use tabs.", valid_from=T0 + 2 * day),
                sample_entity("e3", "Write docs.", CandidateType.TASK, valid_from=T0 + day),
                sample_entity("e4", "Team call.", scope=ALPHA, valid_from=T0 + 3 * day),
                sample_entity("p1", "Maya", CandidateType.PERSON, valid_from=T0 + 4 * day),
            ],
            [],
            [],
        )
        wanted = frozenset({CandidateType.DECISION, CandidateType.TASK})
        found = await graph.recent_entities("org-a", wanted, frozenset({ANA}), 10)
        assert [e.entity_id for e in found] == ["e2", "e3", "e1"]
        assert found[0] == sample_entity("e2", "Use tabs.", valid_from=T0 + 2 * day)
        everywhere = await graph.recent_entities("org-a", wanted, None, 2)
        assert [e.entity_id for e in everywhere] == ["e4", "e2"]
        assert await graph.recent_entities("org-a", wanted, frozenset(), 10) == []
        assert await graph.recent_entities("org-b", wanted, None, 10) == []

    async def test_entities_citing_sources(self, graph: GraphStore) -> None:
        other = msgspec.structs.replace(
            sample_entity("e9", "Another source."),
            provenance=msgspec.structs.replace(
                _provenance(), source_ids=("s2",), source_hashes={"s2": "h2"}
            ),
        )
        await graph.promote([sample_entity("e2"), sample_entity("e1"), other], [], [])
        assert [e.entity_id for e in await graph.entities_citing("org-a", ["s1"])] == [
            "e1",
            "e2",
        ]
        both = await graph.entities_citing("org-a", ["s1", "s2"])
        assert [e.entity_id for e in both] == ["e1", "e2", "e9"]
        assert await graph.entities_citing("org-a", ["s7"]) == []
        assert await graph.entities_citing("org-b", ["s1"]) == []

    async def test_relationship_facts_are_searchable_and_walkable(self, graph: GraphStore) -> None:
        maya = sample_entity("p1", "Maya", CandidateType.PERSON)
        guide = sample_entity("t1", "the migration guide", CandidateType.TASK)
        alpha = sample_entity("p2", "Lee", CandidateType.PERSON, scope=ALPHA)
        edges = [
            sample_edge("p1", "e1"),
            sample_edge("p1", "t1", "r2", "Maya committed to writing the migration guide"),
            sample_edge("p2", "t1", "r3", "Lee reviews the migration guide", ALPHA),
        ]
        await graph.promote([maya, sample_entity(), guide, alpha], edges, [])
        hits = await graph.edge_lexical("org-a", "migration guide", 10, None)
        assert {h.item_id for h in hits} == {"r2", "r3"}
        assert hits[0].score >= hits[-1].score
        only_ana = await graph.edge_lexical("org-a", "migration guide", 10, frozenset({ANA}))
        assert [h.item_id for h in only_ana] == ["r2"]
        assert await graph.edge_lexical("org-a", "zebra", 10, None) == []
        assert await graph.edge_lexical("org-b", "migration", 10, None) == []
        assert await graph.get_edges("org-a", ["r2", "nope"]) == {"r2": edges[1]}
        assert await graph.neighbours("org-a", ["t1"], 10) == edges[1:]
        assert await graph.neighbours("org-a", ["p1", "p2"], 2) == edges[:2]
        assert await graph.neighbours("org-a", [], 10) == []

    async def test_supersedes_links_newer_to_older_and_goes_with_them(
        self, graph: GraphStore
    ) -> None:
        old = sample_entity("e1")
        new = sample_entity("e2", "We switched to Postgres instead of SurrealDB.")
        await graph.promote([old, new, sample_entity("e3", "Unrelated.")], [], [])
        link = supersession("e2", "e1")
        await graph.supersede([link])
        await graph.supersede([link])  # written again: kept once
        assert await graph.supersessions("org-a", ["e1"]) == [link]
        assert await graph.supersessions("org-a", ["e2", "e3"]) == [link]
        assert await graph.supersessions("org-a", ["e3"]) == []
        assert await graph.supersessions("org-b", ["e1"]) == []
        got = (await graph.supersessions("org-a", ["e1"]))[0]
        assert got.valid_from.utcoffset() == timedelta(0)
        import pytest  # here, not at the top: importing the suite needs no pytest

        with pytest.raises(ValueError, match="exist"):
            await graph.supersede([supersession("e2", "ghost", "x2")])
        assert await graph.supersessions("org-a", ["e2"]) == [link]
        await graph.forget_source("org-a", "s1")  # both cite s1: the link goes with them
        assert await graph.supersessions("org-a", ["e1", "e2"]) == []

    async def test_vectors_attach_and_rank_by_cosine_in_visible_spaces(
        self, graph: GraphStore
    ) -> None:
        maya = sample_entity("p1", "Maya", CandidateType.PERSON)
        lee = sample_entity("p2", "Lee", CandidateType.PERSON, scope=ALPHA)
        edges = [sample_edge("p1", "e1"), sample_edge("p2", "e1", "r2", "Lee decided: go", ALPHA)]
        await graph.promote([maya, sample_entity(), lee], edges, [])
        assert await graph.entity_vector("org-a", [1.0, 0.0, 0.0], 10, None, "m1") == []
        todo = await graph.unembedded("org-a", "m1", 10)
        assert [(t.kind, t.record_id) for t in todo] == [
            (DerivedKind.ENTITY, "e1"),
            (DerivedKind.ENTITY, "p1"),
            (DerivedKind.ENTITY, "p2"),
            (DerivedKind.EDGE, "r1"),
            (DerivedKind.EDGE, "r2"),
        ]
        assert todo[1].text == "person: Maya" and todo[3].text == "Maya decided: go with SurrealDB"
        assert len(await graph.unembedded("org-a", "m1", 2)) == 2
        await graph.attach_vectors(
            "org-a",
            "m1",
            [
                DerivedVector(kind=DerivedKind.ENTITY, record_id="e1", vector=[1.0, 0.0, 0.0]),
                DerivedVector(kind=DerivedKind.ENTITY, record_id="p1", vector=[0.6, 0.8, 0.0]),
                DerivedVector(kind=DerivedKind.ENTITY, record_id="p2", vector=[0.8, 0.6, 0.0]),
                DerivedVector(kind=DerivedKind.EDGE, record_id="r1", vector=[0.0, 1.0, 0.0]),
                DerivedVector(kind=DerivedKind.EDGE, record_id="r2", vector=[0.0, 0.8, 0.6]),
                DerivedVector(kind=DerivedKind.ENTITY, record_id="ghost", vector=[1.0, 0.0, 0.0]),
            ],
        )
        near = await graph.entity_vector("org-a", [1.0, 0.0, 0.0], 10, None, "m1")
        assert [h.item_id for h in near] == ["e1", "p2", "p1"]
        assert [round(h.score, 4) for h in near] == [1.0, 0.8, 0.6]
        mine = await graph.entity_vector("org-a", [1.0, 0.0, 0.0], 10, frozenset({ANA}), "m1")
        assert [h.item_id for h in mine] == ["e1", "p1"]
        assert len(await graph.entity_vector("org-a", [1.0, 0.0, 0.0], 1, None, "m1")) == 1
        assert await graph.entity_vector("org-a", [1.0, 0.0, 0.0], 10, frozenset(), "m1") == []
        assert await graph.entity_vector("org-a", [1.0, 0.0, 0.0], 10, None, "m2") == []
        assert await graph.entity_vector("org-b", [1.0, 0.0, 0.0], 10, None, "m1") == []
        facts = await graph.edge_vector("org-a", [0.0, 1.0, 0.0], 10, None, "m1")
        assert [h.item_id for h in facts] == ["r1", "r2"]
        alpha = await graph.edge_vector("org-a", [0.0, 1.0, 0.0], 10, frozenset({ALPHA}), "m1")
        assert [h.item_id for h in alpha] == ["r2"]
        assert await graph.unembedded("org-a", "m1", 10) == []
        # another model's vectors do not count: everything is to embed again
        assert len(await graph.unembedded("org-a", "m2", 10)) == 5
        assert await graph.unembedded("org-b", "m1", 10) == []

    async def test_vectors_go_with_their_records(self, graph: GraphStore) -> None:
        other = msgspec.structs.replace(
            sample_entity("e9", "Kept: another source."),
            provenance=msgspec.structs.replace(
                _provenance(), source_ids=("s2",), source_hashes={"s2": "h2"}
            ),
        )
        await graph.promote([sample_entity(), other], [], [])
        await graph.attach_vectors(
            "org-a",
            "m1",
            [
                DerivedVector(kind=DerivedKind.ENTITY, record_id=e, vector=[1.0, 0.0])
                for e in ("e1", "e9")
            ],
        )
        await graph.forget_source("org-a", "s1")
        near = await graph.entity_vector("org-a", [1.0, 0.0], 10, None, "m1")
        assert [h.item_id for h in near] == ["e9"]
        await graph.promote([other], [], [])  # promoted again: embedded again
        assert await graph.entity_vector("org-a", [1.0, 0.0], 10, None, "m1") == []
        assert [t.record_id for t in await graph.unembedded("org-a", "m1", 10)] == ["e9"]

    async def test_an_entity_is_found_by_its_normalised_name_type_and_space(
        self, graph: GraphStore
    ) -> None:
        maya = sample_entity("p2", "Maya  Lin", CandidateType.PERSON)
        await graph.promote(
            [
                maya,
                sample_entity("p3", "maya lin", CandidateType.PERSON),
                sample_entity("p1", "Maya Lin", CandidateType.PROJECT),
                sample_entity("p4", "Maya Lin", CandidateType.PERSON, scope=ALPHA),
            ],
            [],
            [],
        )
        person = CandidateType.PERSON
        assert await graph.entity_named("org-a", person, " MAYA lin ", ANA) == maya
        found = await graph.entity_named("org-a", person, "Maya Lin", ALPHA)
        assert found is not None and found.entity_id == "p4"
        found = await graph.entity_named("org-a", CandidateType.PROJECT, "maya lin", ANA)
        assert found is not None and found.entity_id == "p1"
        assert await graph.entity_named("org-a", person, "Maya", ANA) is None
        assert await graph.entity_named("org-b", person, "Maya Lin", ANA) is None
