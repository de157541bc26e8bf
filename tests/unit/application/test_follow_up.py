"""The home's follow-up: drafts with open gaps, stale and duplicate sources to review.

Each suggestion is re-checked by the policy: hidden or another person's memory
never appears, and the space choice only narrows.
"""

from datetime import timedelta

from application.corrections.commands import CorrectionRequest
from application.memory.commands import RememberRequest
from application.synthesis.commands import PlanRequest
from application.synthesis.records import Freshness
from application.trust.records import PrincipalRecord
from application.workspace.follow_up import Why
from application.workspace.space_choice import SpaceChoice
from domain.lifecycle import CorrectionAction
from domain.scopes import MemoryScope
from tests.support.world import START, World

_TEXT = "The quarterly budget review moves to the second Tuesday of every month."


async def _correct(world: World, who: PrincipalRecord, source_id: str, action: str) -> None:
    request = CorrectionRequest(action=CorrectionAction(action))
    corrections = world.services.corrections
    preview = await corrections.preview(await world.ctx(who), source_id, request)
    await corrections.apply(await world.ctx(who), source_id, request, preview.preview_token)


async def test_stale_marks_and_same_text_are_suggested_hidden_and_others_are_not() -> None:
    world = World()
    org = await world.org("acme")
    ana = await world.user(org, "ana")
    bea = await world.user(org, "bea")
    first = await world.remember(ana, _TEXT)
    world.clock.set(START + timedelta(minutes=1))
    again = await world.remember(ana, _TEXT)
    stale = await world.remember(ana, "The office wifi password rotates every Friday at noon.")
    await _correct(world, ana, stale.source_id, "mark_stale")
    hidden = await world.remember(ana, "A hidden canary-okapi note that repeats itself, twice.")
    await world.remember(ana, "A hidden canary-okapi note that repeats itself, twice.")
    await _correct(world, ana, hidden.source_id, "hide")
    await world.remember(ana, "ok")  # short: never a likely duplicate
    await world.remember(ana, "ok")
    await world.remember(bea, _TEXT)  # bea's, not ana's to see

    found = await world.services.follow_up.suggest(await world.ctx(ana))
    got = {(s.source_id, s.why, s.same_as) for s in found.sources}
    assert got == {
        (again.source_id, Why.LIKELY_DUPLICATE, first.source_id),
        (stale.source_id, Why.MARKED_STALE, None),
    }
    assert "canary-okapi" not in repr(found)
    receipts = await world.services.audit.recent(org, 10)
    feed = next(r for r in receipts if r.action == "workspace_follow_up")
    assert sorted(feed.ids) == sorted([again.source_id, stale.source_id])
    assert "canary-okapi" not in repr(receipts) and "budget" not in repr(receipts)

    bea_sees = await world.services.follow_up.suggest(await world.ctx(bea))
    assert bea_sees.sources == []  # one copy of her own: nothing to review


async def test_the_space_choice_narrows_and_never_widens() -> None:
    world = World()
    org = await world.org("acme")
    ana = await world.user(org, "ana")
    bea = await world.user(org, "bea")
    apollo = await world.space(org, MemoryScope.PROJECT, "apollo", writes=True)
    await world.member(apollo, ana)
    for _ in range(2):
        await world.remember(ana, _TEXT, MemoryScope.PROJECT, "apollo")
        await world.remember(ana, _TEXT + " (private copy)")
    everything = await world.services.follow_up.suggest(await world.ctx(ana))
    assert {s.scope for s in everything.sources} == {MemoryScope.PROJECT, MemoryScope.PRIVATE}
    project = SpaceChoice(scope=MemoryScope.PROJECT)
    only = await world.services.follow_up.suggest(await world.ctx(ana), project)
    assert [(s.scope, s.scope_key) for s in only.sources] == [(MemoryScope.PROJECT, "apollo")]
    other = SpaceChoice(scope=MemoryScope.PROJECT, scope_key="hermes")
    assert (await world.services.follow_up.suggest(await world.ctx(ana), other)).sources == []
    # bea is no member of apollo: choosing it shows her nothing of it
    blind = await world.services.follow_up.suggest(
        await world.ctx(bea), SpaceChoice(scope=MemoryScope.PROJECT, scope_key="apollo")
    )
    assert blind.sources == []


async def test_drafts_with_open_gaps_until_remembered_and_past_freshness() -> None:
    world = World()
    org = await world.org("acme")
    ana = await world.user(org, "ana")
    old = await world.services.memory.remember(
        RememberRequest(
            org_id=org,
            content="The ledger service stores its entries in SurrealDB.",
            occurred_at=START - timedelta(days=400),
        ),
        await world.ctx(ana),
    )
    synthesis = world.services.synthesis
    plan = PlanRequest(
        org_id=org,
        query="ledger storage",
        outline=["Storage", "Recovery of penguins on Mars"],
        freshness=Freshness(max_age_days=30),
    )
    run_id = (await synthesis.plan(plan, await world.ctx(ana))).run_id
    assert (await world.services.follow_up.suggest(await world.ctx(ana))).drafts == []  # planned
    await synthesis.draft(org, run_id, await world.ctx(ana))
    (drafted,) = (await world.services.follow_up.suggest(await world.ctx(ana))).drafts
    assert (drafted.run_id, drafted.stage, drafted.status) == (run_id, "drafted", None)
    await synthesis.verify(org, run_id, await world.ctx(ana))
    found = await world.services.follow_up.suggest(await world.ctx(ana))
    (verified,) = found.drafts
    assert verified.stage == "verified" and verified.gaps >= 1 and verified.stale_sources == 1
    assert [(s.source_id, s.why) for s in found.sources] == [(old.source_id, Why.PAST_FRESHNESS)]
    bea = await world.user(org, "bea")
    assert (await world.services.follow_up.suggest(await world.ctx(bea))).drafts == []
    await synthesis.remember(org, run_id, await world.ctx(ana))
    assert (await world.services.follow_up.suggest(await world.ctx(ana))).drafts == []
