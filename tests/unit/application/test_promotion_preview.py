"""Promotion preview: who would see a candidate's records in the target space, before accept."""

import pytest

from application.corrections.commands import CorrectionRequest
from application.reflection.accept_preview import PromotionPreviewer
from application.reflection.commands import ReviewRequest
from application.trust.records import PrincipalRecord
from domain.errors import ConflictError, InvalidInputError, NotFoundError
from domain.lifecycle import CorrectionAction
from domain.policy.reach import ReachCounts
from domain.reasons import ReasonCode
from domain.reflection.candidates import CandidateType, ReviewAction, ReviewState
from domain.scopes import MemoryScope
from tests.support.reflection import reflect, seed_session
from tests.support.world import World


async def _setup() -> tuple[World, PrincipalRecord, PrincipalRecord, str, str]:
    world = World()
    org = await world.org("acme")
    ana, bob = await world.user(org, "ana"), await world.user(org, "bob")
    await world.user(org, "carol")
    await world.agent(org, "bob-bot", bob)
    space = await world.space(org, MemoryScope.TEAM, "eng", writes=True)
    await world.member(space, ana)
    await world.member(space, bob)
    sid = await seed_session(world, ana)
    made = await reflect(world, ana, sid)
    decision = next(c for c in made.candidates if c.type is CandidateType.DECISION)
    return world, ana, bob, sid, decision.id


def _previewer(world: World) -> PromotionPreviewer:
    assert world.services.promotion_preview is not None
    return world.services.promotion_preview


def _accept(who: PrincipalRecord, cid: str, token: str | None) -> ReviewRequest:
    return ReviewRequest(
        org_id=who.org_id,
        candidate_id=cid,
        action=ReviewAction.ACCEPT,
        promote_to_scope=MemoryScope.TEAM,
        scope_key="eng",
        preview_token=token,
    )


async def test_counts_who_would_see_a_private_candidate_promoted_to_the_team() -> None:
    world, ana, bob, sid, cid = await _setup()
    preview = await _previewer(world).preview(
        ana.org_id, cid, await world.ctx(ana), MemoryScope.TEAM, "eng"
    )
    assert preview.allowed and preview.target == "team/eng"
    # ana sees it; bob and his agent read the team but not ana's private session
    assert preview.reach == ReachCounts(visible=1, denied=2)
    (source,) = preview.sources
    assert (source.source_id, source.readable_by, source.not_readable_by) == (sid, 1, 2)
    # in the suggested (private) space only ana reads it at all
    mine = await _previewer(world).preview(ana.org_id, cid, await world.ctx(ana))
    assert mine.target == f"private/{ana.principal_id}" and mine.reach == ReachCounts(visible=1)
    # accepting with the preview's token writes, and the candidate is accepted
    assert world.services.review is not None
    done = await world.services.review.review(
        _accept(ana, cid, preview.preview_token), await world.ctx(ana)
    )
    assert done.candidate.state is ReviewState.ACCEPTED
    with pytest.raises(ConflictError):  # an accepted candidate has nothing to preview
        await _previewer(world).preview(ana.org_id, cid, await world.ctx(ana))
    with pytest.raises(NotFoundError):
        await _previewer(world).preview(bob.org_id, cid, await world.ctx(bob))


async def test_a_refused_promotion_has_no_token_and_a_stale_token_is_refused() -> None:
    world, ana, _, sid, cid = await _setup()
    ctx = await world.ctx(ana)
    refused = await _previewer(world).preview(ana.org_id, cid, ctx, MemoryScope.ORGANIZATION)
    assert not refused.allowed and refused.reason is ReasonCode.SCOPE_DISABLED
    assert refused.preview_token is None
    preview = await _previewer(world).preview(ana.org_id, cid, ctx, MemoryScope.TEAM, "eng")
    assert world.services.review is not None
    elsewhere = ReviewRequest(  # the suggested space, with the team preview's token
        org_id=ana.org_id,
        candidate_id=cid,
        action=ReviewAction.ACCEPT,
        preview_token=preview.preview_token,
    )
    with pytest.raises(InvalidInputError) as foreign:
        await world.services.review.review(elsewhere, await world.ctx(ana))
    assert foreign.value.reason is ReasonCode.PREVIEW_INVALID
    stale = CorrectionRequest(action=CorrectionAction.MARK_SENSITIVE)
    made = await world.services.corrections.preview(ctx, sid, stale)
    await world.services.corrections.apply(ctx, sid, stale, made.preview_token)
    with pytest.raises(ConflictError) as changed:
        await world.services.review.review(
            _accept(ana, cid, preview.preview_token), await world.ctx(ana)
        )
    assert changed.value.reason is ReasonCode.SOURCE_CHANGED
    # a fresh preview counts the sensitive source as withheld from the other readers
    again = await _previewer(world).preview(
        ana.org_id, cid, await world.ctx(ana), MemoryScope.TEAM, "eng"
    )
    assert again.reach == ReachCounts(visible=1, denied=2)
    with pytest.raises(InvalidInputError):  # only accept takes a token
        ReviewRequest(
            org_id=ana.org_id, candidate_id=cid, action=ReviewAction.REJECT, preview_token="x"
        ).validate()
