"""The use cases the workspace's access, synthesize and review pages added.

``Roster`` (space members, delegations: admins only), ``SynthesisRunList``
(the caller's own runs, newest first; anyone else's run does not exist) and
``Reviewer.candidate`` (one candidate, only if every source is readable).
"""

import pytest

from application.reflection.commands import ProposedCandidate, ProposedSpan, ProposeRequest
from application.synthesis.commands import PlanRequest
from domain.errors import NotFoundError, PolicyDeniedError
from domain.policy import OrgRole, SpaceRole
from domain.reasons import ReasonCode
from domain.reflection.candidates import CandidateType
from domain.scopes import MemoryScope
from tests.support.world import World


async def test_roster_lists_members_and_delegations_to_admins_only() -> None:
    world = World()
    org = await world.org("acme")
    ana = await world.user(org, "ana", OrgRole.ADMIN)
    bea = await world.user(org, "bea")
    scribe = await world.agent(org, "scribe", ana, delegation_days=7)
    apollo = await world.space(org, MemoryScope.PROJECT, "apollo")
    await world.member(apollo, bea, SpaceRole.READER)
    roster = world.services.roster
    members = await roster.members(org, apollo.space_id, ana)
    assert [(m.principal_id, m.role) for m in members] == [(bea.principal_id, SpaceRole.READER)]
    delegations = await roster.delegations(org, ana)
    assert [(d.agent_id, d.user_id) for d in delegations] == [
        (scribe.principal_id, ana.principal_id)
    ]
    for who in (bea, scribe):
        with pytest.raises(PolicyDeniedError) as refused:
            await roster.members(org, apollo.space_id, who)
        assert refused.value.reason is ReasonCode.ADMIN_REQUIRED
        with pytest.raises(PolicyDeniedError):
            await roster.delegations(org, who)
    other = await world.org("globex")
    boss = await world.user(other, "boss", OrgRole.OWNER)
    with pytest.raises(NotFoundError):  # another organisation's space id means nothing here
        await roster.members(other, apollo.space_id, boss)


async def test_run_list_is_the_callers_own_newest_first() -> None:
    world = World()
    org = await world.org("acme")
    ana = await world.user(org, "ana")
    bea = await world.user(org, "bea")
    await world.remember(ana, "the ledger keeps entries in SurrealDB")
    synthesis, runs = world.services.synthesis, world.services.synthesis_runs
    ids = []
    for query in ("ledger storage", "ledger crash recovery"):
        ctx = await world.ctx(ana)
        ids.append((await synthesis.plan(PlanRequest(org_id=org, query=query), ctx)).run_id)
    listed = await runs.recent(org, await world.ctx(ana))
    assert [r.run_id for r in listed] == ids[::-1]
    assert [r.stage for r in listed] == ["planned", "planned"]
    await synthesis.draft(org, ids[0], await world.ctx(ana))
    assert (await runs.run(org, ids[0], await world.ctx(ana))).stage == "drafted"
    assert await runs.recent(org, await world.ctx(bea)) == []
    with pytest.raises(NotFoundError):
        await runs.run(org, ids[0], await world.ctx(bea))


async def test_one_candidate_only_when_every_source_is_readable() -> None:
    world = World()
    org = await world.org("acme")
    ana = await world.user(org, "ana")
    bea = await world.user(org, "bea")
    text = "We decided to go with SurrealDB."
    source = await world.remember(ana, text)
    assert world.services.reflection is not None and world.services.review is not None
    proposed = await world.services.reflection.propose(
        ProposeRequest(
            org_id=org,
            candidates=[
                ProposedCandidate(
                    type=CandidateType.DECISION,
                    text="go with SurrealDB",
                    spans=[ProposedSpan(source_id=source.source_id, start=0, end=len(text))],
                )
            ],
        ),
        await world.ctx(ana),
    )
    candidate_id = proposed.candidates[0].id
    found = await world.services.review.candidate(org, candidate_id, await world.ctx(ana))
    assert found.id == candidate_id and found.source_ids == [source.source_id]
    with pytest.raises(NotFoundError):
        await world.services.review.candidate(org, candidate_id, await world.ctx(bea))
    receipts = await world.services.audit.recent(org, 10)
    assert any(r.action == "candidate_read" and r.ids == [candidate_id] for r in receipts)
