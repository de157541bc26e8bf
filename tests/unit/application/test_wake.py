"""The wake pack over the reference adapters: what matters now, gated like recall."""

import pytest

from adapters.tokenizers.tiktoken_counter import TiktokenCounter
from application.corrections.commands import CorrectionRequest
from application.retrieval.wake_records import WakePack, WakeRequest
from application.trust.records import PrincipalRecord
from domain.errors import InvalidInputError, PolicyDeniedError
from domain.lifecycle import CorrectionAction, Mark
from domain.policy import SpaceRole
from domain.reasons import ReasonCode
from domain.reflection.candidates import CandidateType
from domain.scopes import MemoryScope
from domain.wake import WakeSection
from tests.support.reflection import reflect, review, seed_session
from tests.support.world import World


async def _setup() -> tuple[World, PrincipalRecord, PrincipalRecord]:
    world = World()
    org = await world.org("acme")
    return world, await world.user(org, "ana"), await world.user(org, "bob")


async def _wake(
    world: World, who: PrincipalRecord, budget: int = 1200, space: str | None = None
) -> WakePack:
    request = WakeRequest(org_id=who.org_id, token_budget=budget, space=space)
    return await world.services.wake.wake(request, await world.ctx(who))


async def _accept_all(world: World, who: PrincipalRecord, sid: str, *kinds: CandidateType) -> None:
    for c in (await reflect(world, who, sid)).candidates:
        if c.type in kinds:
            await review(world, who, c.id)


async def _correct(
    world: World, who: PrincipalRecord, sid: str, request: CorrectionRequest
) -> None:
    preview = await world.services.corrections.preview(await world.ctx(who), sid, request)
    await world.services.corrections.apply(
        await world.ctx(who), sid, request, preview.preview_token
    )


async def test_a_fresh_install_wakes_with_recent_raw_memory() -> None:
    world, ana, _ = await _setup()
    first = (await world.remember(ana, "The boat trip is on Saturday.")).source_id
    second = (await world.remember(ana, "Lunch with the design team went well.")).source_id
    pack = await _wake(world, ana)
    assert [i.source_ids for i in pack.items] == [[second], [first]]  # newest first
    item = pack.items[0]
    assert item.section is WakeSection.RECENT and item.entity_id is None
    assert item.type == "source" and item.chunk_ids and "nothing promoted" in item.reason
    assert pack.rendered.startswith("## Recent memory\n- Lunch with the design team")
    assert pack.token_count == TiktokenCounter().count(pack.rendered)
    assert pack.token_count <= 1200 and pack.encoding == "cl100k_base"


async def test_promoted_decisions_and_tasks_come_first_with_their_sources() -> None:
    world, ana, _ = await _setup()
    sid = await seed_session(world, ana)
    note = (await world.remember(ana, "The office plants need water.")).source_id
    await _accept_all(world, ana, sid, CandidateType.DECISION, CandidateType.TASK)
    pack = await _wake(world, ana)
    sections = [i.section for i in pack.items]
    assert sections == [WakeSection.DECISIONS, WakeSection.TASKS, WakeSection.RECENT]
    decision, task, recent = pack.items
    assert decision.text == "We decided to go with SurrealDB for storage."
    assert decision.source_ids == [sid] and decision.entity_id and decision.chunk_ids
    assert decision.reason.startswith("active decision: promoted record (rules@3)")
    assert task.text == "I will write the migration guide." and task.type == "task"
    # the session is covered by its records; the raw fallback shows what is not
    assert recent.source_ids == [note] and "no promoted record covers" in recent.reason
    assert "## Active decisions\n" in pack.rendered and "## Open tasks\n" in pack.rendered


async def test_the_budget_holds_and_is_checked() -> None:
    world, ana, _ = await _setup()
    sid = await seed_session(world, ana)
    await _accept_all(world, ana, sid, CandidateType.DECISION, CandidateType.TASK)
    for n in range(12):
        await world.remember(ana, f"Note {n}: " + "a long remembered passage " * 40)
    pack = await _wake(world, ana, budget=120)
    assert pack.token_count <= 120 and pack.omitted > 0
    assert pack.items[0].section is WakeSection.DECISIONS
    assert all(i.token_count <= 100 for i in (await _wake(world, ana)).items)  # clipped
    for budget in (0, 1201):
        with pytest.raises(InvalidInputError) as bad:
            await _wake(world, ana, budget=budget)
        assert bad.value.reason is ReasonCode.BUDGET_OUT_OF_RANGE


async def test_wake_shows_only_what_the_caller_may_read() -> None:
    world, ana, bob = await _setup()
    space = await world.space(ana.org_id, MemoryScope.PROJECT, "alpha", writes=True)
    await world.member(space, ana)
    await world.member(space, bob, SpaceRole.READER)
    private = await seed_session(world, ana)
    for c in (await reflect(world, ana, private)).candidates:
        if c.type is CandidateType.DECISION:  # kept in the project, drawn from ana's memory
            await review(world, ana, c.id, promote_to_scope=MemoryScope.PROJECT, scope_key="alpha")
    shared = (
        await world.remember(ana, "Alpha ships in May.", MemoryScope.PROJECT, "alpha")
    ).source_id
    bob_pack = await _wake(world, bob)
    assert [i.source_ids for i in bob_pack.items] == [[shared]]
    assert "SurrealDB" not in bob_pack.rendered
    ana_pack = await _wake(world, ana, space="project/alpha")
    assert {i.section for i in ana_pack.items} == {WakeSection.DECISIONS, WakeSection.RECENT}
    with pytest.raises(PolicyDeniedError):
        await _wake(world, bob, space=f"private/{ana.principal_id}")


async def test_corrections_reach_the_wake_pack() -> None:
    world, ana, _ = await _setup()
    sid = await seed_session(world, ana)
    await _accept_all(world, ana, sid, CandidateType.DECISION)
    other = (await world.remember(ana, "Decision: the launch moves to June.")).source_id
    await _accept_all(world, ana, other, CandidateType.DECISION)
    mark = CorrectionRequest(action=CorrectionAction.MARK_STALE)
    await _correct(world, ana, other, mark)
    pack = await _wake(world, ana)
    decisions = [i for i in pack.items if i.section is WakeSection.DECISIONS]
    # the stale one is newer, yet shown after fresh evidence, flagged
    assert [i.source_ids for i in decisions] == [[sid], [other]]
    assert decisions[1].stale and "stale" in decisions[1].reason
    await _correct(world, ana, sid, CorrectionRequest(action=CorrectionAction.HIDE))
    hidden = await _wake(world, ana)
    assert sid not in {s for i in hidden.items for s in i.source_ids}
    assert Mark.STALE in (await world.store.get_source(ana.org_id, other)).marks  # type: ignore[union-attr]


async def test_the_newest_readable_sources_fill_in_newest_first_whatever_lies_between() -> None:
    world, ana, bob = await _setup()
    space = await world.space(ana.org_id, MemoryScope.PROJECT, "alpha", writes=True)
    await world.member(space, ana)
    await world.member(space, bob, SpaceRole.READER)
    mine: list[str] = []
    for n in range(14):  # ana's private notes and project notes, interleaved
        shared = n % 3 == 0
        where = (MemoryScope.PROJECT, "alpha") if shared else (MemoryScope.PRIVATE, None)
        sid = (await world.remember(ana, f"Note {n}: the kettle {n} works.", *where)).source_id
        mine.append(sid)
    await _correct(world, ana, mine[-2], CorrectionRequest(action=CorrectionAction.HIDE))
    readable = [s for s in reversed(mine) if s != mine[-2]]
    pack = await _wake(world, ana)
    # the eight newest readable sources, one passage each, newest first (read side by side)
    assert [i.source_ids for i in pack.items] == [[s] for s in readable[:8]]
    assert all(i.chunk_ids and i.text.startswith("Note ") for i in pack.items)
    bob_pack = await _wake(world, bob)
    assert [i.source_ids for i in bob_pack.items] == [[mine[n]] for n in (9, 6, 3, 0)]  # 12: hidden
