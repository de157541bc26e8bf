"""The workspace's recent activity: the caller's own receipts, re-checked by the policy."""

from application.corrections.commands import CorrectionRequest
from domain.lifecycle import CorrectionAction
from domain.policy import OrgRole
from domain.scopes import MemoryScope
from tests.support.world import World


async def test_captures_and_recalls_are_the_callers_own_and_agents_are_named() -> None:
    world = World()
    org = await world.org("acme")
    ana = await world.user(org, "ana", OrgRole.ADMIN)
    bea = await world.user(org, "bea")
    scribe = await world.agent(org, "scribe", ana)
    mine = await world.remember(ana, "ana's note about the garden")
    await world.remember(bea, "bea's private diary")
    await world.search(ana, "garden")
    await world.pack(ana, "garden")
    await world.search(scribe, "garden")
    await world.search(bea, "diary")

    activity = await world.services.activity.recent(await world.ctx(ana))
    assert [c.source_id for c in activity.captures] == [mine.source_id]
    assert activity.captures[0].excerpt == "ana's note about the garden"
    assert sorted(r.action for r in activity.recalls) == ["context", "search"]
    assert [(a.agent_name, a.reads) for a in activity.agents] == [("scribe", 1)]

    as_agent = await world.services.activity.recent(await world.ctx(scribe))
    assert as_agent.captures == [] and as_agent.agents == []
    assert [r.action for r in as_agent.recalls] == ["search"]

    as_bea = await world.services.activity.recent(await world.ctx(bea))
    assert [c.excerpt for c in as_bea.captures] == ["bea's private diary"]
    assert as_bea.agents == []


async def test_a_hidden_capture_drops_out_and_the_feed_leaves_a_receipt() -> None:
    world = World()
    org = await world.org("acme")
    ana = await world.user(org, "ana")
    kept = await world.remember(ana, "kept note")
    hidden = await world.remember(ana, "hidden canary note")
    corrections = world.services.corrections
    request = CorrectionRequest(action=CorrectionAction.HIDE)
    preview = await corrections.preview(await world.ctx(ana), hidden.source_id, request)
    await corrections.apply(
        await world.ctx(ana), hidden.source_id, request, preview.preview_token
    )
    activity = await world.services.activity.recent(await world.ctx(ana))
    assert [c.source_id for c in activity.captures] == [kept.source_id]
    receipts = await world.services.audit.recent(org, 5)
    feed = [r for r in receipts if r.action == "workspace_activity"]
    assert feed and feed[0].ids == [kept.source_id]
    assert all("canary" not in str(r) for r in receipts)


async def test_long_text_is_cut_to_an_excerpt_on_one_line() -> None:
    world = World()
    org = await world.org("acme")
    ana = await world.user(org, "ana")
    await world.remember(ana, "word\n" * 100, MemoryScope.PRIVATE)
    activity = await world.services.activity.recent(await world.ctx(ana))
    excerpt = activity.captures[0].excerpt
    assert len(excerpt) == 160 and excerpt.endswith("…") and "\n" not in excerpt
