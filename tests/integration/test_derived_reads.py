"""A derived search's reads on SurrealDB: one graph read and one lifecycle read
(``DerivedRecall.lists``) give the lists the separate reads gave, and a source hidden after
the held full text and vectors were filled takes its records and facts with it."""

from collections.abc import AsyncIterator
from dataclasses import dataclass

import msgspec
import pytest

from adapters.surreal import codec
from adapters.surreal.graph_store import SurrealGraphStore
from adapters.surreal.memory_store import SurrealMemoryStore
from application.ports.records import EmbeddingSpace
from application.ports.reflection_records import Mention
from application.reflection.derived import DerivedRecall
from contracts.graph_store import T0, sample_edge, sample_entity, supersession
from contracts.samples import embedded, make_chunk, make_source
from domain.models import Principal
from domain.policy import MemoryPolicyContext, Surface
from domain.reflection.candidates import CandidateType
from domain.scopes import LifecycleState, MemoryScope

pytestmark = pytest.mark.slow

ORG = "org-a"
QUERIES = ["SurrealDB storage decision", "who decided", "Maya", "Postgres", "nothing here"]


def _ctx(user: str) -> MemoryPolicyContext:
    return MemoryPolicyContext(
        org_id=ORG, actor=Principal(principal_id=user), surface=Surface.CLI, now=T0, audit_id=""
    )


@dataclass
class _World:
    store: SurrealMemoryStore
    graph: SurrealGraphStore
    derived: DerivedRecall


@pytest.fixture
async def world() -> AsyncIterator[_World]:
    store = SurrealMemoryStore("mem://")
    await store.prepare(ORG, EmbeddingSpace(model="test", dimension=4))
    source = make_source("s1", ORG, scope=MemoryScope.PRIVATE, scope_key="ana")
    await store.save_memory(source, [embedded(make_chunk(c, source)) for c in ("k1", "k2")])
    graph = SurrealGraphStore(store.connection)
    maya = sample_entity("e2", "Maya", CandidateType.PERSON)
    later = sample_entity("e3", "We decided to move storage to Postgres.")
    await graph.promote(
        [sample_entity("e1"), maya, later],
        [sample_edge("e2", "e1"), sample_edge("e2", "e3", "r2", "Maya decided: Postgres")],
        [
            Mention(entity_id="e1", chunk_id="k1"),
            Mention(entity_id="e3", chunk_id="k2"),
            Mention(entity_id="e2", chunk_id="k2"),
        ],
    )
    yield _World(store, graph, DerivedRecall(store=store, graph=graph))
    await store.close()


async def _both(world: _World, query: str, user: str) -> tuple[object, object]:
    derived = world.derived
    derived.one_read = True
    one = await derived.lists(ORG, query, _ctx(user))
    derived.one_read = False
    apart = await derived.lists(ORG, query, _ctx(user))
    derived.one_read = True
    return one, apart


async def test_one_read_gives_the_lists_the_separate_reads_gave(world: _World) -> None:
    seen = 0
    for user in ("ana", "bob"):
        for query in QUERIES:
            one, apart = await _both(world, query, user)
            assert msgspec.to_builtins(one) == msgspec.to_builtins(apart), (user, query)
            seen += bool(one[0])  # type: ignore[index]
    assert seen  # ana finds records: the comparison is not between two empty answers


async def test_one_round_trip_for_every_derived_list_with_the_graph_held(world: _World) -> None:
    trips = world.store.connection
    world.graph.recheck_s = 3600.0  # no token read due: what is left is the lifecycle gate
    await world.derived.lists(ORG, QUERIES[0], _ctx("ana"))  # the held tables are loaded
    sent = trips.round_trips
    hits, lists = await world.derived.lists(ORG, QUERIES[0], _ctx("ana"))
    assert hits and lists["entity"] and lists["relation"] and lists["graph"]
    assert trips.round_trips - sent == 1
    # the graph asked of the engine (main's one read): the graph read and the gate
    world.graph.graph_in_process = False
    sent = trips.round_trips
    assert await world.derived.lists(ORG, QUERIES[0], _ctx("ana")) == (hits, lists)
    assert trips.round_trips - sent == 2


async def _engine_lists(world: _World, query: str, user: str) -> object:
    """The lists with every graph read asked of the engine (nothing held), as main reads."""
    engine = SurrealGraphStore(world.store.connection, lexical_in_process=False)
    engine.graph_in_process = False
    return await DerivedRecall(store=world.store, graph=engine).lists(ORG, query, _ctx(user))


async def test_another_process_s_graph_writes_are_seen_once_its_token_is_read(
    world: _World,
) -> None:
    query = "Maya Postgres storage decision"
    world.graph.recheck_s = 0.0
    before = await world.derived.lists(ORG, query, _ctx("ana"))  # the graph is held
    assert before == await _engine_lists(world, query, "ana")
    other = SurrealGraphStore(world.store.connection)  # another process: its own holder
    newer = sample_entity("e4", "Maya chose Postgres for storage, final decision.")
    await other.promote(
        [newer],
        [sample_edge("e4", "e2", "r4", "Maya chose Postgres")],
        [Mention(entity_id="e4", chunk_id="k1")],
    )
    await other.supersede([supersession("e4", "e3", "x4")])
    after = await world.derived.lists(ORG, query, _ctx("ana"))
    assert after == await _engine_lists(world, query, "ana")
    assert "e4" in {h.entity_id for h in after[0]} and after != before
    assert await other.forget_source(ORG, "s1") == 4
    gone = await world.derived.lists(ORG, query, _ctx("ana"))
    assert gone == await _engine_lists(world, query, "ana") == ([], {"relation": []})


async def test_this_process_s_writes_update_the_held_graph_in_place(world: _World) -> None:
    query = "Maya Postgres storage decision"
    await world.derived.lists(ORG, query, _ctx("ana"))
    held = world.graph._images.copy()  # (what is held, to see it kept)
    assert held
    await world.graph.promote(
        [sample_entity("e4", "Maya chose Postgres for storage, final decision.")],
        [sample_edge("e4", "e2", "r4", "Maya chose Postgres")],
        [Mention(entity_id="e4", chunk_id="k1")],
    )
    await world.graph.supersede([supersession("e4", "e3", "x4")])
    for user in ("ana", "bob"):
        for ask in (query, *QUERIES):
            got = await world.derived.lists(ORG, ask, _ctx(user))
            assert got == await _engine_lists(world, ask, user), (user, ask)
    assert world.graph._images == held  # (updated, not read again)


async def test_a_source_hidden_after_the_held_tables_were_filled_takes_its_records(
    world: _World,
) -> None:
    hits, lists = await world.derived.lists(ORG, "Maya decided SurrealDB", _ctx("ana"))
    assert {h.entity_id for h in hits} >= {"e1", "e2"}
    assert lists["relation"] and lists["entity"]
    source = await world.store.get_source(ORG, "s1")
    assert source is not None
    hidden = msgspec.structs.replace(source, lifecycle=LifecycleState.HIDDEN)
    # a lifecycle change is not a graph write: the graph, full text and vectors stay held
    held = world.graph._images.copy()  # (what is held, to see it kept)
    assert held
    await world.store.update_source(hidden, expected_version=source.version, drop_text=False)
    for one_read in (True, False):
        world.derived.one_read = one_read
        hits, lists = await world.derived.lists(ORG, "Maya decided SurrealDB", _ctx("ana"))
        assert hits == [] and not any(lists.values()), one_read
    assert world.graph._images == held  # (the held graph answered, gated)


async def test_a_graph_not_kept_for_want_of_room_still_answers(world: _World) -> None:
    query = "Maya Postgres storage decision"
    world.graph.max_graphs = 0  # nothing held: each search reads the graph, answers alike
    for user in ("ana", "bob"):
        got = await world.derived.lists(ORG, query, _ctx(user))
        assert got == await _engine_lists(world, query, user)
    assert world.graph._images == {}  # (nothing was kept)


async def _tables(store: SurrealMemoryStore) -> set[str]:
    namespace = codec.namespace_for(ORG)
    (info,) = await store.connection.query(namespace, "INFO FOR DB;", operation="test")
    return set((info or {}).get("tables", {}))


async def test_an_organisation_with_no_graph_costs_no_graph_round_trip() -> None:
    store = SurrealMemoryStore("mem://")
    try:
        await store.prepare(ORG, EmbeddingSpace(model="test", dimension=4))
        source = make_source("s1", ORG, scope=MemoryScope.PRIVATE, scope_key="ana")
        await store.save_memory(source, [embedded(make_chunk("k1", source))])
        tables = await _tables(store)
        assert "entity" not in tables
        graph = SurrealGraphStore(store.connection)
        graph.recheck_s = 0.0  # a graph that exists would be checked at every search
        derived = DerivedRecall(store=store, graph=graph)
        query = "SurrealDB storage decision"
        sent = store.connection.round_trips
        assert await derived.lists(ORG, query, _ctx("ana")) == ([], {"relation": []})
        # the first search reads the graph once: no full text or vectors to load, no DDL
        assert store.connection.round_trips - sent == 1  # the graph, found absent
        assert await graph.unembedded(ORG, "test", 10) == []  # the vector pass: nothing
        assert await _tables(store) == tables  # and the reads defined nothing
        # nor does the pass make the namespace of an organisation that has none (dropped)
        assert await graph.unembedded("org-never-made", "test", 10) == []
        (root,) = await store.connection.query(None, "INFO FOR ROOT;", operation="test")
        assert codec.namespace_for("org-never-made") not in root["namespaces"]
        sent = store.connection.round_trips
        assert await derived.lists(ORG, query, _ctx("ana")) == ([], {"relation": []})
        assert store.connection.round_trips == sent  # nothing to read: nothing asked
        # this process's first promotion is seen at once (the empty graph held is updated)
        await graph.promote([sample_entity("e1")], [], [Mention(entity_id="e1", chunk_id="k1")])
        hits, lists = await derived.lists(ORG, query, _ctx("ana"))
        assert [h.entity_id for h in hits] == ["e1"] and lists["entity"] == ["k1"]
    finally:
        await store.close()
