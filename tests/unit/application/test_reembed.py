"""Changing the embedding model without downtime: the ``Reembed`` use case.

Over the reference adapters: the hashing embedder at 64 dimensions serves, the
same bag of words at 32 dimensions is the new model. A target embedder that
counts, fails or waits on demand shows what the run promises: nothing is
embedded twice across an interruption, search keeps answering with the old
model until the switch, writes made meanwhile get a vector of the new model,
and the switch leaves no vector of the old one.
"""

import asyncio
from collections.abc import Sequence

import pytest

from adapters.inmemory.hashing_embedder import HashingEmbedder
from adapters.inmemory.memory_store import InMemoryMemoryStore
from adapters.inprocess.index import InProcessIndex
from application.enrichment.lane import EmbeddingLane
from application.memory.writer import MemoryWriter
from application.operations.reembed.records import ReembedState
from application.operations.reembed.switchable import SwitchableEmbedder
from application.ports import Embedder
from application.ports.records import EmbeddingSpace, Vector
from application.trust.records import PrincipalRecord
from contracts.samples import make_chunk, make_source
from domain.errors import ConflictError, InvalidInputError, PolicyDeniedError
from domain.policy import OrgRole, Surface
from domain.reasons import ReasonCode
from tests.support.world import World

CLI = Surface.CLI
NOTES = [
    "The release train leaves on Thursday morning.",
    "Ana prefers green tea over coffee.",
    "The staging database lives in the Frankfurt region.",
    "Bruno owns the billing migration this quarter.",
    "Quarterly planning happens in the Lisbon office.",
    "The on-call rotation changes every Monday.",
    "Our style guide forbids trailing whitespace.",
    "The design review for search is next Tuesday.",
]


class Target:
    """The next model: counts every text it embeds; can fail or wait at a given call."""

    def __init__(self, dimension: int = 32) -> None:
        self._inner = HashingEmbedder(dimension=dimension)
        self.texts: list[str] = []
        self.fail_at: int | None = None
        self.hold_at: int | None = None
        self.held = asyncio.Event()
        self.release = asyncio.Event()
        self.calls = 0

    @property
    def space(self) -> EmbeddingSpace:
        return self._inner.space

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        self.calls += 1
        if self.fail_at is not None and self.calls == self.fail_at:
            raise RuntimeError("the model went away")
        if self.hold_at is not None and self.calls == self.hold_at:
            self.held.set()
            await self.release.wait()
        self.texts.extend(texts)
        return await self._inner.embed(texts)


def _catalog(target: Target) -> "dict[str, Embedder]":
    return {"next": target, "same": HashingEmbedder()}


async def _world(target: Target, notes: Sequence[str] = NOTES) -> tuple[World, PrincipalRecord]:
    world = World(embedders=_catalog(target).__getitem__)
    org = await world.org("acme")
    owner = await world.user(org, "owner", OrgRole.OWNER)
    for note in notes:
        await world.remember(owner, note)
    await world.services.memory.lane.drain()
    return world, owner


async def _top(world: World, who: PrincipalRecord, query: str) -> str:
    found = await world.search(who, query, limit=3)
    assert found.results, f"no result for {query!r}"
    return found.results[0].text


async def test_only_the_install_owner_may_start_it_and_bad_requests_are_refused() -> None:
    target = Target()
    world, owner = await _world(target, NOTES[:2])
    with pytest.raises(PolicyDeniedError) as denied:
        await world.services.reembed.start("next", owner, CLI)  # an org owner, not the install's
    assert denied.value.reason is ReasonCode.ADMIN_REQUIRED
    with pytest.raises(PolicyDeniedError):
        await world.services.reembed.status(owner)
    with pytest.raises(InvalidInputError) as unknown:
        await world.services.reembed.start("no-such-model", None, CLI)
    assert unknown.value.reason is ReasonCode.UNKNOWN_EMBEDDER
    with pytest.raises(ConflictError) as same:
        await world.services.reembed.start("same", None, CLI)
    assert same.value.reason is ReasonCode.REEMBED_SAME_MODEL
    status = await world.services.reembed.status(None)
    assert status.state is ReembedState.IDLE and status.serving_model == "hashing-bow-64"


async def test_a_run_switches_every_chunk_to_the_new_model_and_search_follows() -> None:
    target = Target()
    world, owner = await _world(target)
    org = owner.org_id
    before = await _top(world, owner, "green tea")
    result = await world.services.reembed.run("next", None, CLI)
    assert result.state is ReembedState.DONE, result.error
    assert (result.done, result.total, result.organizations) == (len(NOTES), len(NOTES), 1)
    assert result.serving_model == "hashing-bow-32" == world.services.memory.embedding_space.model
    assert await world.store.recorded_space(org) == target.space
    entries = await world.store.scan_index_entries(org, None, 100)
    assert {len(e.vector or []) for e in entries} == {32}  # no vector of the old model left
    assert await _top(world, owner, "green tea") == before
    # new writes embed with the new model at once
    await world.remember(owner, "The kettle in the kitchen is broken.")
    await world.services.memory.lane.drain()
    assert await _top(world, owner, "kettle kitchen broken") == (
        "The kettle in the kitchen is broken."
    )
    receipts = await world.services.audit.recent("home", 20)
    actions = [r.action for r in receipts]
    assert "admin.reembed.start" in actions and "admin.reembed.done" in actions
    done = next(r for r in receipts if r.action == "admin.reembed.done")
    assert done.counts["chunks"] == len(NOTES) and done.counts["dimension"] == 32
    assert "hashing" not in repr(done) and "tea" not in repr(done)  # no text, no model name


async def test_an_interrupted_run_resumes_and_embeds_nothing_twice() -> None:
    target = Target()
    world, owner = await _world(target)
    world.services.reembed._batch = 3  # three pages of three, two and three chunks
    target.fail_at = 2
    failed = await world.services.reembed.run("next", None, CLI)
    assert failed.state is ReembedState.FAILED and failed.error == "embedder_failed"
    assert failed.done == 3 and world.services.memory.embedding_space.model == "hashing-bow-64"
    assert await world.store.staged_count(owner.org_id, "hashing-bow-32") == 3
    target.fail_at = None
    resumed = await world.services.reembed.run("next", None, CLI)
    assert resumed.state is ReembedState.DONE
    assert sorted(target.texts) == sorted(NOTES)  # each text embedded exactly once


async def test_search_keeps_answering_with_the_old_model_during_the_run() -> None:
    target = Target()
    world, owner = await _world(target)
    world.services.reembed._batch = 2
    before = [await _top(world, owner, q) for q in ("green tea", "billing migration")]
    target.hold_at = 2
    await world.services.reembed.start("next", None, CLI)
    await asyncio.wait_for(target.held.wait(), 5)
    status = await world.services.reembed.status(None)
    assert status.state is ReembedState.RUNNING and status.done == 2 and status.total == 8
    assert status.serving_model == "hashing-bow-64"
    during = [await _top(world, owner, q) for q in ("green tea", "billing migration")]
    assert during == before
    with pytest.raises(ConflictError) as running:
        await world.services.reembed.start("next", None, CLI)
    assert running.value.reason is ReasonCode.REEMBED_RUNNING
    # a write during the run: its chunk is caught up before the switch
    await world.remember(owner, "The kettle in the kitchen is broken.")
    await world.services.memory.lane.drain()
    target.release.set()
    done = await world.services.reembed.wait()
    assert done is not None and done.state is ReembedState.DONE, done
    assert done.done == done.total == len(NOTES) + 1
    entries = await world.store.scan_index_entries(owner.org_id, None, 100)
    assert len(entries) == len(NOTES) + 1 and {len(e.vector or []) for e in entries} == {32}
    assert await _top(world, owner, "kettle kitchen") == "The kettle in the kitchen is broken."


async def test_every_organisation_switches_together() -> None:
    target = Target()
    world, owner = await _world(target, NOTES[:3])
    other = await world.org("globex")
    kim = await world.user(other, "kim", OrgRole.OWNER)
    await world.remember(kim, "Kim keeps the spare keys.")
    await world.services.memory.lane.drain()
    result = await world.services.reembed.run("next", None, CLI)
    assert result.state is ReembedState.DONE and result.organizations == 2
    for org_id in (owner.org_id, other):
        assert await world.store.recorded_space(org_id) == target.space
    assert await _top(world, kim, "spare keys") == "Kim keeps the spare keys."


async def test_an_organisation_first_used_during_the_run_switches_too() -> None:
    target = Target()
    world, _ = await _world(target)
    world.services.reembed._batch = 2
    target.hold_at = 2
    await world.services.reembed.start("next", None, CLI)
    await asyncio.wait_for(target.held.wait(), 5)
    late = await world.org("late")
    kim = await world.user(late, "kim", OrgRole.OWNER)
    await world.remember(kim, "Kim keeps the spare keys.")
    await world.services.memory.lane.drain()
    target.release.set()
    done = await world.services.reembed.wait()
    assert done is not None and done.state is ReembedState.DONE and done.organizations == 2
    assert await world.store.recorded_space(late) == target.space
    assert await _top(world, kim, "spare keys") == "Kim keeps the spare keys."


class _Negated:
    """Another model of the same width: the bag of words, negated."""

    space = EmbeddingSpace(model="negated-bow-64", dimension=64)

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        return [[-x for x in v] for v in await HashingEmbedder().embed(texts)]


class _SwitchMidWrite(InMemoryMemoryStore):
    """Switches the organisation to the next model right after a writer read its cache."""

    def __init__(self, embedder: SwitchableEmbedder, target: Embedder) -> None:
        super().__init__()
        self._embedder, self._target = embedder, target
        self.armed = False

    async def cached_embeddings(
        self, org_id: str, model: str, hashes: Sequence[str]
    ) -> dict[str, Vector]:
        found = await super().cached_embeddings(org_id, model, hashes)
        if self.armed:
            self.armed = False
            await self.switch_space(org_id, self._target.space)  # an empty org: nothing staged
            self._embedder.switch_to(self._target)
        return found


async def test_a_write_caught_by_the_switch_is_saved_with_the_new_model() -> None:
    old, new = HashingEmbedder(), _Negated()
    embedder = SwitchableEmbedder(old)
    store = _SwitchMidWrite(embedder, new)
    index = InProcessIndex()
    lane = EmbeddingLane(store=store, index=index, embedder=embedder)
    writer = MemoryWriter(store=store, index=index, embedder=embedder, lane=lane)
    await store.prepare("org", old.space)
    await index.mark_ready("org")
    source = make_source("s1", "org", content="hello there")
    chunk = make_chunk("s1-0", source, text="hello there")
    (cached,) = await old.embed(["hello there"])
    await store.cache_embeddings("org", old.space.model, {chunk.content_hash: cached})
    store.armed = True  # the old model's cached vector is read, then the store switches
    await writer.write("org", [(source, [chunk])], wait=True)
    (entry,) = await store.scan_index_entries("org", None, 10)
    assert entry.vector == (await new.embed(["hello there"]))[0]  # not the old model's
    await lane.stop()
