"""Background reflection after writes: never waits, bounded, fails closed, shows progress."""

import asyncio
from datetime import timedelta

from application.memory.commands import RememberRequest
from application.reflection.background import ReflectionLane
from application.reflection.commands import ReflectRequest, ReflectResult
from application.trust.records import PrincipalRecord
from domain.models import Principal
from domain.policy import MemoryPolicyContext, Surface
from domain.reasons import ReasonCode
from domain.scopes import MemoryScope
from tests.support.world import World

NOTE = "We decided to rotate the on-call weekly. TODO update the pager rota."


class Gate:
    """A slow extractor stand-in: reflection waits until the test opens the gate."""

    def __init__(self, world: World) -> None:
        assert world.services.reflection is not None
        self._reflect = world.services.reflection.reflect
        self.opened = asyncio.Event()
        self.calls = 0

    async def reflect(self, request: ReflectRequest, ctx: MemoryPolicyContext) -> ReflectResult:
        self.calls += 1
        await self.opened.wait()
        return await self._reflect(request, ctx)


def _lane(world: World, gate: Gate, capacity: int = 256, quiet_s: float = 0) -> ReflectionLane:
    lane = ReflectionLane(
        reflect=gate.reflect,
        store=world.store,
        control=world.control_store,
        access=world.services.access,
        clock=world.clock,
        capacity=capacity,
        quiet_s=quiet_s,
    )
    world.services.memory.on_write(lane.offer)
    return lane


async def _candidates(world: World, who: PrincipalRecord) -> dict[str, set[str]]:
    """Each source's candidate types, as the writer may list them."""
    assert world.services.review is not None
    listed = await world.services.review.list_candidates(
        who.org_id, await world.ctx(who), limit=200
    )
    found: dict[str, set[str]] = {}
    for c in listed.candidates:
        for sid in c.source_ids:
            found.setdefault(sid, set()).add(str(c.type))
    return found


async def _people() -> tuple[World, PrincipalRecord]:
    world = World()
    org = await world.org("acme")
    return world, await world.user(org, "ana")


async def test_a_write_with_it_on_yields_candidates_without_waiting() -> None:
    world, ana = await _people()
    lane = world.services.reflect_on_write()
    assert lane is not None and world.services.reflect_on_write() is lane  # one lane
    written = await world.remember(ana, NOTE)
    await lane.drain()
    assert {"decision", "task"} <= (await _candidates(world, ana))[written.source_id]
    state = lane.queue_state()
    assert (state.name, state.depth, state.done, state.failed) == ("reflection", 0, 1, 0)
    status = await world.services.status.status(None, [])  # the operator's view
    assert any(q.name == "reflection" and q.done == 1 for q in status.queues)
    await world.services.close()


async def test_a_write_never_waits_for_a_slow_extractor() -> None:
    world, ana = await _people()
    gate = Gate(world)
    lane = _lane(world, gate)
    written = await asyncio.wait_for(world.remember(ana, NOTE), timeout=10)
    await asyncio.sleep(0)  # the worker took the job and waits at the gate
    assert gate.calls == 1 and await _candidates(world, ana) == {}
    gate.opened.set()
    await lane.drain()
    assert written.source_id in await _candidates(world, ana)
    await lane.close()


async def test_a_burst_of_writes_goes_first_and_reflection_follows() -> None:
    world, ana = await _people()
    gate = Gate(world)
    gate.opened.set()
    lane = _lane(world, gate, quiet_s=0.2)
    ids = [(await world.remember(ana, f"We decided to name it v{n}.")).source_id for n in range(3)]
    await asyncio.sleep(0.05)
    assert gate.calls == 0 and lane.depth == 3  # the writes paused only 50 ms
    await lane.drain()
    assert gate.calls == 3 and set(ids) <= set(await _candidates(world, ana))
    await lane.close()


async def test_a_full_queue_drops_to_pending_and_catches_up() -> None:
    world, ana = await _people()
    gate = Gate(world)
    lane = _lane(world, gate, capacity=1)
    ids = []
    for n in range(4):
        written = await world.remember(ana, f"We decided to ship build {n}. TODO tag release {n}.")
        ids.append(written.source_id)
        await asyncio.sleep(0)
    # the worker holds the first job, one waits, the rest were dropped to catch up later
    assert lane.dropped == 2 and lane.queue_state().behind == 1 and lane.depth == 1
    gate.opened.set()
    await lane.drain()
    assert set(ids) <= set(await _candidates(world, ana))
    assert lane.queue_state().behind == 0 and lane.failed == 0
    await lane.close()


async def test_a_job_whose_writer_lost_access_does_nothing() -> None:
    world, ana = await _people()
    bot = await world.agent(ana.org_id, "ana-bot", ana, delegation_days=1)
    gate = Gate(world)
    lane = _lane(world, gate)
    # the agent writes into its user's private memory under a live delegation ...
    request_ctx = await world.ctx(bot)
    written = await world.services.memory.remember(
        RememberRequest(
            org_id=ana.org_id, content=NOTE, scope=MemoryScope.PRIVATE, scope_key=ana.principal_id
        ),
        request_ctx,
    )
    # ... which has expired by the time the job runs: its context is rebuilt then, and refused
    world.clock.set(world.clock.now() + timedelta(days=2))
    gate.opened.set()
    await lane.drain()
    assert written.source_id not in await _candidates(world, ana)
    assert lane.reflected == 0
    # a writer that no longer exists: nothing runs, the reason is kept (never text)
    ghost = MemoryPolicyContext(
        org_id=ana.org_id,
        actor=Principal(principal_id="gone"),
        surface=Surface.API,
        now=world.clock.now(),
    )
    lane.offer(ghost, [written.source_id])
    await lane.drain()
    assert lane.last_error == ReasonCode.JOB_POLICY_CONTEXT_STALE and lane.failed == 1
    await lane.close()
