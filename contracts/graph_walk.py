"""The one-read hop every ``GraphStore`` adapter owes graph expansion (``neighbourhood``).

Part of ``GraphStoreContract``: the edges are ``neighbours``' (edge-id order,
at most ``limit``), the entities are both ends of those edges and every entity
in a ``visible`` space named like an end (any type; case and spacing aside;
at most ``limit`` per name, in id order), and the mentions are those of all of
them. Nothing is gated: an end outside ``visible`` still comes back (the
caller gates it); a namesake outside ``visible`` does not.
"""

import msgspec

from application.ports.reflection import GraphStore
from application.ports.reflection_records import DerivedEdge, DerivedEntity, Mention
from domain.reflection.candidates import CandidateType
from domain.scopes import MemoryScope, ScopeRef

__all__ = ["GraphWalkContract"]

ANA = ScopeRef(MemoryScope.PRIVATE, "ana")
ALPHA = ScopeRef(MemoryScope.PROJECT, "alpha")


class GraphWalkContract:
    """Mixed into ``GraphStoreContract``; the subclass provides a ``graph`` fixture."""

    async def _world(self, graph: GraphStore) -> tuple[dict[str, DerivedEntity], list[DerivedEdge]]:
        from contracts.graph_store import sample_edge, sample_entity

        person, project, task = CandidateType.PERSON, CandidateType.PROJECT, CandidateType.TASK
        made = [
            sample_entity("p1", "Priya", person),
            sample_entity("o1", "Orion", project),
            sample_entity("t1", "the rollback runbook", task, scope=ALPHA),
            # Priya again: another type, odd case and spacing, another space, another org
            sample_entity("p2", "  priya ", CandidateType.ENTITY),
            sample_entity("p3", "PRIYA", person, scope=ALPHA),
            sample_entity("p4", "Priya", CandidateType.ARTIFACT),
            sample_entity("z9", "Zed", person),
        ]
        edges = [
            sample_edge("o1", "p1", "r1", "Orion is led by Priya"),
            sample_edge("p1", "t1", "r2", "Priya owns the rollback runbook", ALPHA),
            sample_edge("p4", "z9", "r3", "Zed uses the Priya artifact"),
        ]
        mentions = [
            Mention(entity_id="p1", chunk_id="k1"),
            Mention(entity_id="t1", chunk_id="k2"),
            Mention(entity_id="p2", chunk_id="k3"),
            Mention(entity_id="z9", chunk_id="k9"),
        ]
        await graph.promote(made, edges, mentions)
        other = sample_entity("p1", "Priya", person, org_id="org-b")
        await graph.promote([other], [], [Mention(entity_id="p1", chunk_id="kb")])
        return {e.entity_id: e for e in made}, edges

    async def test_one_hop_brings_edges_ends_namesakes_and_mentions(
        self, graph: GraphStore
    ) -> None:
        made, edges = await self._world(graph)
        hood = await graph.neighbourhood("org-a", ["o1"], 10, None)
        assert hood.edges == await graph.neighbours("org-a", ["o1"], 10) == edges[:1]
        # the ends (o1, p1) and every entity named like one of them, whatever its type
        assert {k: hood.entities[k] for k in sorted(hood.entities)} == {
            k: made[k] for k in ("o1", "p1", "p2", "p3", "p4")
        }
        assert sorted(hood.namesakes) == ["o1", "p1", "p2", "p3", "p4"]
        assert [i for i in hood.namesakes if i.startswith("p")] == ["p1", "p2", "p3", "p4"]
        assert hood.mentions == {"p1": ["k1"], "p2": ["k3"]}

    async def test_namesakes_stay_in_visible_spaces_and_within_the_limit(
        self, graph: GraphStore
    ) -> None:
        _, edges = await self._world(graph)
        hood = await graph.neighbourhood("org-a", ["p1"], 10, frozenset({ANA}))
        # the edges and their ends are not gated here (t1 is in alpha): the caller does it
        assert hood.edges == edges[:2]
        assert set(hood.entities) == {"o1", "p1", "t1", "p2", "p4"}
        assert sorted(hood.namesakes) == ["o1", "p1", "p2", "p4"]
        assert hood.mentions == {"p1": ["k1"], "t1": ["k2"], "p2": ["k3"]}
        # at most ``limit`` edges, and at most ``limit`` namesakes per name, in id order
        one = await graph.neighbourhood("org-a", ["p1"], 1, None)
        assert one.edges == edges[:1]
        assert sorted(one.namesakes) == ["o1", "p1"]
        assert set(one.entities) == {"o1", "p1"}
        # no readable space: the ends still come back, no namesake does
        hidden = await graph.neighbourhood("org-a", ["p1"], 10, frozenset())
        assert (set(hidden.entities), hidden.namesakes) == ({"o1", "p1", "t1"}, [])

    async def test_an_empty_start_or_another_org_walks_nowhere(self, graph: GraphStore) -> None:
        await self._world(graph)
        for hood in (
            await graph.neighbourhood("org-a", [], 10, None),
            await graph.neighbourhood("org-a", ["nope"], 10, None),
            await graph.neighbourhood("org-b", ["p1"], 10, None),
            await graph.neighbourhood("org-c", ["p1"], 10, None),
        ):
            assert (hood.edges, hood.entities, hood.namesakes, hood.mentions) == ([], {}, [], {})

    async def _agrees(
        self,
        graph: GraphStore,
        asks: list[tuple[list[str], list[str], list[str], int, frozenset[ScopeRef] | None]],
    ) -> None:
        """``matched`` equals the separate reads, ask by ask."""
        for entity_ids, edge_ids, start, limit, visible in asks:
            got = await graph.matched("org-a", entity_ids, edge_ids, start, limit, visible)
            edges = await graph.get_edges("org-a", edge_ids)
            ends = [i for e in edges.values() for i in (e.from_id, e.to_id)]
            assert got.entities == await graph.get_entities("org-a", entity_ids)
            assert got.edges == edges
            assert got.mentions == await graph.mentions_of(
                "org-a", list(dict.fromkeys([*entity_ids, *ends]))
            )
            assert got.links == await graph.supersessions("org-a", entity_ids)
            if start:
                hood = await graph.neighbourhood("org-a", start, limit, visible)
                assert got.hood.edges == hood.edges
                assert got.hood.entities == hood.entities
                assert sorted(got.hood.namesakes) == sorted(hood.namesakes)
                assert got.hood.mentions == hood.mentions
            else:
                assert (got.hood.edges, got.hood.entities, got.hood.mentions) == ([], {}, {})

    async def test_the_matched_records_read_at_once_equal_the_separate_reads(
        self, graph: GraphStore
    ) -> None:
        from contracts.graph_store import supersession

        await self._world(graph)
        link = supersession("p2", "p1")
        await graph.supersede([link])
        asks: list[tuple[list[str], list[str], list[str], int, frozenset[ScopeRef] | None]] = [
            (["p1", "z9", "nope"], ["r2", "r3", "gone"], ["p1", "o1"], 10, None),
            (["t1", "p1"], ["r1"], ["p1"], 10, frozenset({ANA})),
            (["o1"], [], ["o1"], 1, frozenset()),
            ([], ["r3", "r1"], [], 10, None),
            (["p4", "p2"], [], [], 10, None),
        ]
        await self._agrees(graph, asks)
        # the links found from either end; another organisation, or nothing asked: nothing
        assert (await graph.matched("org-a", ["p1"], [], [], 10, None)).links == [link]
        for org, ids in (("org-b", ["p2"]), ("org-c", ["p1"]), ("org-a", [])):
            none = await graph.matched(org, ids, [], ids, 10, None)
            assert (none.entities, none.edges, none.mentions, none.links) == ({}, {}, {}, [])
            assert none.hood.edges == []

    async def test_the_matched_records_follow_every_write_after_a_first_read(
        self, graph: GraphStore
    ) -> None:
        """An adapter that holds the graph (Surreal's ``graph_image``) answers after its own
        promotions, supersessions, forgets and drops as the separate reads do."""
        from contracts.graph_store import sample_edge, sample_entity, supersession

        await self._world(graph)
        asks: list[tuple[list[str], list[str], list[str], int, frozenset[ScopeRef] | None]] = [
            (["p1", "z9", "n1", "o1"], ["r2", "r3", "r4"], ["p1", "o1", "n1"], 10, None),
            (["t1", "p1", "n2"], ["r1", "r4"], ["p1", "n1"], 10, frozenset({ANA})),
            (["p4", "p2", "n1"], [], ["z9"], 1, None),
        ]
        await self._agrees(graph, asks)  # the first read: an adapter may fill what it holds
        person = CandidateType.PERSON
        # a new namesake of Priya, a record renamed (its name key moves), a new edge, and
        # more mentions of a record that had some
        await graph.promote(
            [
                sample_entity("n1", "priya", person),
                sample_entity("o1", "Orion Two", CandidateType.PROJECT),
                sample_entity("n2", "Nadia", person, scope=ALPHA),
                sample_entity("p1", "Priya", person),
            ],
            [sample_edge("n1", "o1", "r4", "Priya leads Orion Two")],
            [
                Mention(entity_id="n1", chunk_id="k7"),
                Mention(entity_id="p1", chunk_id="k8"),
                Mention(entity_id="p1", chunk_id="k1"),
            ],
        )
        await self._agrees(graph, asks)
        await graph.supersede([supersession("n1", "p1", "x2"), supersession("p2", "p1", "x3")])
        await self._agrees(graph, asks)
        # a record citing another source only: it stays when s1's records go
        n3 = sample_entity("n3", "Nina", person)
        cites = msgspec.structs.replace(
            n3.provenance, source_ids=("s2",), source_hashes={"s2": "h2"}
        )
        n3 = msgspec.structs.replace(n3, provenance=cites)
        await graph.promote([n3], [sample_edge("n3", "p1", "r5", "Nina knows Priya")], [])
        asks.append((["n3", "p1"], ["r5"], ["n3"], 10, None))
        await self._agrees(graph, asks)
        assert await graph.forget_source("org-a", "s1") > 0
        await self._agrees(graph, asks)
        assert (await graph.matched("org-a", ["n3"], [], ["n3"], 10, None)).entities
        await graph.drop_graph("org-a")
        await self._agrees(graph, asks)
        assert not (await graph.matched("org-a", ["n3"], [], ["n3"], 10, None)).entities
