"""Derived records by meaning: vectors made after promotion, the vector signals, the gate."""

import asyncio
from typing import Any

import pytest

from application.ports.derived import QueryMeaning
from application.reflection.derived import DerivedRecall
from application.reflection.vectors import DerivedVectors
from application.trust.records import PrincipalRecord
from domain.policy import SpaceRole
from domain.scopes import MemoryScope
from tests.support.concept_embedder import ConceptEmbedder
from tests.support.logs import captured
from tests.support.reflection import reflect, review, seed_session
from tests.support.world import World

#: shares no word with "We decided to go with SurrealDB for storage." (full-text misses it)
BY_MEANING = "Which datastore got picked?"


async def _promoted(
    embedder: ConceptEmbedder | None = None,
    promote_to: MemoryScope | None = None,
) -> tuple[World, PrincipalRecord, PrincipalRecord, str, str]:
    """ana's private session, its decision accepted (into ``promote_to`` when given);
    bob is a reader of project alpha, where ana writes."""
    world = World(embedder=embedder or ConceptEmbedder())
    org = await world.org("acme")
    ana, bob = await world.user(org, "ana"), await world.user(org, "bob")
    alpha = await world.space(org, MemoryScope.PROJECT, "alpha", writes=True)
    await world.member(alpha, ana)
    await world.member(alpha, bob, SpaceRole.READER)
    sid = await seed_session(world, ana)
    made = await reflect(world, ana, sid)
    decision = next(c for c in made.candidates if c.type == "decision")
    key = "alpha" if promote_to is MemoryScope.PROJECT else None
    result = await review(world, ana, decision.id, promote_to_scope=promote_to, scope_key=key)
    return world, ana, bob, sid, result.promoted[0].id


def _vectors(world: World) -> DerivedVectors:
    assert world.services.derived_vectors is not None
    return world.services.derived_vectors


async def test_promotion_does_not_wait_for_vectors_and_the_pass_attaches_them() -> None:
    world, ana, _, _, entity = await _promoted()
    model = world.embedder.space.model
    # the accept returned with the record written and its vector still to make
    assert [t.record_id for t in await world.graph.unembedded(ana.org_id, model, 10)] == [entity]
    await _vectors(world).drain()
    assert await world.graph.unembedded(ana.org_id, model, 10) == []
    query = (await world.embedder.embed(["database choose"]))[0]
    near = await world.graph.entity_vector(ana.org_id, query, 5, None, model)
    assert [h.item_id for h in near] == [entity]


async def test_a_record_matched_only_by_meaning_comes_back_with_its_sources() -> None:
    world, ana, _, sid, entity = await _promoted()
    await _vectors(world).drain()
    found = await world.search(ana, BY_MEANING, limit=10)
    (derived,) = found.derived
    assert derived.entity_id == entity and derived.source_ids == [sid]
    assert derived.by_meaning
    answer = next(h for h in found.results if h.signals.entity_vector_rank == 1)
    assert answer.text == "We decided to go with SurrealDB for storage."
    assert answer.signals.entity_rank is None  # no word of the query is in the record
    assert "promoted record that matched the query by meaning" in answer.reason
    # before the vectors exist the record is simply absent from the signal
    world.graph._vectors.clear()  # the reference adapter's own state: as if never embedded
    again = await world.search(ana, BY_MEANING + " ", limit=10)
    assert again.derived == []
    assert all(h.signals.entity_vector_rank is None for h in again.results)


async def test_the_query_is_embedded_once_for_every_leg() -> None:
    embedder = ConceptEmbedder()
    world, ana, _, _, _ = await _promoted(embedder)
    await _vectors(world).drain()
    before = embedder.calls
    found = await world.search(ana, BY_MEANING, limit=10)
    assert found.derived  # the derived vector leg ran
    assert embedder.calls == before + 1


async def test_a_record_from_a_private_source_never_surfaces_by_meaning_to_others() -> None:
    # promoted into project alpha (bob reads it) from ana's private session: the space
    # admits bob, the all-sources gate must not
    world, ana, bob, sid, entity = await _promoted(promote_to=MemoryScope.PROJECT)
    await _vectors(world).drain()
    model = world.embedder.space.model
    query = (await world.embedder.embed([BY_MEANING]))[0]
    in_alpha = await world.graph.entity_vector(ana.org_id, query, 5, None, model)
    assert [h.item_id for h in in_alpha] == [entity]  # it is there, by meaning
    for question in (BY_MEANING, "database", "We decided to go with SurrealDB"):
        seen = await world.search(bob, question, limit=50)
        assert seen.derived == [], question
        assert sid not in {h.source_id for h in seen.results}, question
        assert all(h.signals.entity_vector_rank is None for h in seen.results), question
    mine = await world.search(ana, BY_MEANING, limit=10)
    assert [d.entity_id for d in mine.derived] == [entity]


async def test_relationship_facts_match_by_meaning_in_the_relation_list() -> None:
    world, ana, _, sid, _ = await _promoted()
    made = await reflect(world, ana, sid)
    relation = next(
        c for c in made.candidates if c.type == "relationship" and "guide" in c.text.lower()
    )
    await review(world, ana, relation.id)
    await _vectors(world).drain()
    found = await world.search(ana, "who is authoring the handbook", limit=10)
    hit = next(h for h in found.results if h.text == "I will write the migration guide.")
    assert hit.signals.relation_rank is not None


async def test_one_entity_list_when_the_vector_list_is_folded_in() -> None:
    world, ana, _, _, entity = await _promoted()
    await _vectors(world).drain()
    derived = world.services.derived
    assert derived is not None
    folded = DerivedRecall(store=world.store, graph=world.graph, separate_vector_list=False)
    model = world.embedder.space.model
    vector = (await world.embedder.embed([BY_MEANING]))[0]

    async def meaning() -> QueryMeaning:
        return QueryMeaning(vector=vector, model=model)

    ctx = await world.ctx(ana)
    hits, lists = await folded.signals(ana.org_id, BY_MEANING, ctx, meaning=meaning())
    assert [h.entity_id for h in hits] == [entity] and set(lists) == {"entity", "graph"}
    assert lists["entity"] == hits[0].chunk_ids
    hits, lists = await derived.signals(ana.org_id, BY_MEANING, ctx, meaning=meaning())
    assert lists["entity"] == [] and lists["entity_vector"] == hits[0].chunk_ids
    # no vector this time (the pipeline failed before embedding): words only
    hits, _ = await derived.signals(ana.org_id, BY_MEANING, ctx)
    assert hits == []


async def test_a_failed_pass_leaves_the_records_for_the_next(
    caplog: pytest.LogCaptureFixture,
) -> None:
    embedder = ConceptEmbedder()
    world, ana, _, _, entity = await _promoted(embedder)
    embedder.fail = True
    with captured(caplog, "tessera.embedding"):  # whatever earlier tests did to logging
        await _vectors(world).drain()
    model = embedder.space.model
    assert [t.record_id for t in await world.graph.unembedded(ana.org_id, model, 10)] == [entity]
    assert "derived vectors" in caplog.text and "the model is down" not in caplog.text
    embedder.fail = False
    _vectors(world).schedule(ana.org_id)
    await _vectors(world).drain()
    assert await world.graph.unembedded(ana.org_id, model, 10) == []
    assert await _vectors(world).catch_up(ana.org_id) == 0


async def test_a_restarted_process_embeds_what_was_left_on_its_first_search() -> None:
    world, ana, _, _, entity = await _promoted()
    world.graph._vectors.clear()  # as a process stopped before its pass would leave it
    vectors = DerivedVectors(graph=world.graph, store=world.store, embedder=world.embedder)
    fresh = DerivedRecall(store=world.store, graph=world.graph, vectors=vectors)
    await fresh.signals(ana.org_id, "storage", await world.ctx(ana))
    await vectors.drain()
    assert await world.graph.unembedded(ana.org_id, world.embedder.space.model, 10) == []
    await vectors.close()
    vectors.schedule(ana.org_id)  # closed: schedules nothing
    await vectors.drain()
    assert entity


async def test_the_first_search_leaves_the_pass_until_after_it_and_a_promotion_starts_it_now() -> (
    None
):
    world, ana, _, _, _ = await _promoted()
    await _vectors(world).drain()  # the promotion's own pass, done
    world.graph._vectors.clear()  # as a process stopped before its pass would leave it
    model = world.embedder.space.model
    vectors = DerivedVectors(graph=world.graph, store=world.store, embedder=world.embedder)
    fresh = DerivedRecall(store=world.store, graph=world.graph, vectors=vectors)
    asked: list[str] = []
    unembedded = world.graph.unembedded

    async def counted(org_id: str, model: str, limit: int) -> list[Any]:
        asked.append(org_id)
        return await unembedded(org_id, model, limit)

    world.graph.unembedded = counted  # type: ignore[method-assign]
    await fresh.signals(ana.org_id, "storage", await world.ctx(ana))
    for _ in range(20):  # the search is answered, and its loop turns a few times
        await asyncio.sleep(0)
    assert asked == []  # the pass waits: its reads do not queue before the search's
    vectors.schedule(ana.org_id)  # a promotion does not wait for it
    await vectors.drain()
    assert asked and await world.graph.unembedded(ana.org_id, model, 10) == []
    await vectors.close()
