"""Share preview and apply over the reference adapters, through the real policy."""

import pytest

from application.corrections.commands import CorrectionRequest
from application.sharing.commands import ShareKind, ShareRequest
from application.sharing.source_copy import SHARED_FROM
from application.trust.records import PrincipalRecord
from domain.errors import ConflictError, InvalidInputError, NotFoundError, PolicyDeniedError
from domain.lifecycle import CorrectionAction
from domain.reasons import ReasonCode
from domain.reflection.candidates import CandidateType
from domain.scopes import MemoryScope
from tests.support.reflection import SESSION, reflect, review, seed_session
from tests.support.world import World


class Team:
    """acme: ana and bob in team/eng (writes enabled), carol outside, bob's agent."""

    def __init__(self, world: World, ana: PrincipalRecord, bob: PrincipalRecord) -> None:
        self.world, self.ana, self.bob = world, ana, bob

    def request(
        self, subject: str, kind: ShareKind = ShareKind.SOURCE, key: str = "eng"
    ) -> ShareRequest:
        return ShareRequest(
            org_id=self.ana.org_id,
            kind=kind,
            subject_id=subject,
            scope=MemoryScope.TEAM,
            scope_key=key,
        )


async def _team(writes: bool = True) -> tuple[Team, PrincipalRecord, PrincipalRecord]:
    world = World()
    org = await world.org("acme")
    ana, bob = await world.user(org, "ana"), await world.user(org, "bob")
    carol = await world.user(org, "carol")
    bot = await world.agent(org, "bob-bot", bob)
    space = await world.space(org, MemoryScope.TEAM, "eng", writes=writes)
    await world.member(space, ana)
    await world.member(space, bob)
    return Team(world, ana, bob), carol, bot


async def test_preview_names_who_would_newly_see_a_source_and_apply_shares_a_copy() -> None:
    team, carol, bot = await _team()
    world, ana, bob = team.world, team.ana, team.bob
    note = await world.remember(ana, "The release train leaves on Thursdays.")
    sharing = world.services.sharing
    preview = await sharing.preview(team.request(note.source_id), await world.ctx(ana))
    assert preview.allowed and preview.reason is ReasonCode.ALLOWED
    assert (preview.from_space, preview.to_space) == (f"private/{ana.principal_id}", "team/eng")
    newly = {r.principal_id for r in preview.newly_visible}
    assert newly == {bob.principal_id, bot.principal_id}  # bob's agent reads through bob
    assert (preview.newly_visible_users, preview.newly_visible_agents) == (1, 1)
    assert carol.principal_id not in newly
    assert preview.reach.visible == 3 and preview.records["sources"] == 1
    assert preview.preview_token
    # bob cannot find it before the share, and can after; the original stays private
    assert (await world.search(bob, "release train")).results == []
    applied = await sharing.apply(
        team.request(note.source_id), await world.ctx(ana), preview.preview_token
    )
    assert (applied.newly_visible_users, applied.newly_visible_agents) == (1, 1)
    found = await world.search(bob, "release train")
    assert [h.source_id for h in found.results] == [applied.shared_id]
    copy = await world.store.get_source(ana.org_id, applied.shared_id)
    original = await world.store.get_source(ana.org_id, note.source_id)
    assert copy is not None and original is not None
    assert copy.metadata[SHARED_FROM] == note.source_id and copy.scope is MemoryScope.TEAM
    assert copy.content == original.content and original.scope is MemoryScope.PRIVATE
    assert (await world.search(carol, "release train")).results == []
    await world.services.audit.flush()
    receipts = await world.audit_log.recent(ana.org_id, 100)
    shares = [r.action for r in receipts if r.action.startswith("share_")]
    assert shares == ["share_apply", "share_preview"]  # newest first
    assert "release" not in repr(receipts)


async def test_a_stale_or_missing_token_is_refused() -> None:
    team, _, _ = await _team()
    world, ana = team.world, team.ana
    note = await world.remember(ana, "Deploys freeze in December.")
    ctx = await world.ctx(ana)
    preview = await world.services.sharing.preview(team.request(note.source_id), ctx)
    with pytest.raises(InvalidInputError) as missing:
        await world.services.sharing.apply(team.request(note.source_id), ctx, None)
    assert missing.value.reason is ReasonCode.PREVIEW_REQUIRED
    other_note = await world.remember(ana, "Deploys thaw in January.")
    with pytest.raises(InvalidInputError) as other:
        await world.services.sharing.apply(
            team.request(other_note.source_id), ctx, preview.preview_token
        )
    assert other.value.reason is ReasonCode.PREVIEW_INVALID
    stale = CorrectionRequest(action=CorrectionAction.MARK_STALE)
    made = await world.services.corrections.preview(ctx, note.source_id, stale)
    await world.services.corrections.apply(ctx, note.source_id, stale, made.preview_token)
    with pytest.raises(ConflictError) as changed:
        await world.services.sharing.apply(
            team.request(note.source_id), await world.ctx(ana), preview.preview_token
        )
    assert changed.value.reason is ReasonCode.SOURCE_CHANGED


async def test_a_space_that_takes_no_writes_refuses_the_share() -> None:
    team, _, _ = await _team(writes=False)
    world, ana = team.world, team.ana
    note = await world.remember(ana, "Standup moves to 10:00.")
    preview = await world.services.sharing.preview(
        team.request(note.source_id), await world.ctx(ana)
    )
    assert not preview.allowed and preview.reason is ReasonCode.SCOPE_DISABLED
    assert preview.preview_token is None and preview.newly_visible == []
    assert preview.newly_visible_users == 1  # counted, not named
    with pytest.raises(PolicyDeniedError) as refused:
        await world.services.sharing.apply(team.request(note.source_id), await world.ctx(ana), "x")
    assert refused.value.reason is ReasonCode.SCOPE_DISABLED


async def test_only_readable_active_unmarked_sources_are_shared() -> None:
    team, _, _ = await _team()
    world, ana, bob = team.world, team.ana, team.bob
    note = await world.remember(ana, "My salary review is in March.")
    with pytest.raises(NotFoundError):  # bob may not read ana's private note
        await world.services.sharing.preview(team.request(note.source_id), await world.ctx(bob))
    ctx = await world.ctx(ana)
    sensitive = CorrectionRequest(action=CorrectionAction.MARK_SENSITIVE)
    made = await world.services.corrections.preview(ctx, note.source_id, sensitive)
    await world.services.corrections.apply(ctx, note.source_id, sensitive, made.preview_token)
    with pytest.raises(PolicyDeniedError) as refused:
        await world.services.sharing.preview(team.request(note.source_id), await world.ctx(ana))
    assert refused.value.reason is ReasonCode.SENSITIVE_SOURCE
    shared = await world.remember(ana, "In the team already.", MemoryScope.TEAM, "eng")
    with pytest.raises(InvalidInputError):  # already there
        await world.services.sharing.preview(team.request(shared.source_id), ctx)
    bad = ShareRequest(
        org_id=ana.org_id, kind=ShareKind.SOURCE, subject_id="x", scope=MemoryScope.TEAM
    )
    with pytest.raises(InvalidInputError) as keyless:
        await world.services.sharing.preview(bad, ctx)
    assert keyless.value.reason is ReasonCode.MISSING_SCOPE_KEY


async def test_derived_records_citing_only_the_source_follow_its_copy() -> None:
    team, _, _ = await _team()
    world, ana, bob = team.world, team.ana, team.bob
    sid = await seed_session(world, ana)
    made = await reflect(world, ana, sid)
    decision = next(c for c in made.candidates if c.type is CandidateType.DECISION)
    relation = next(c for c in made.candidates if c.type is CandidateType.RELATIONSHIP)
    await review(world, ana, decision.id)
    linked = await review(world, ana, relation.id)
    # entities with one name and type merge at promotion: count what promotion made
    made_entities = len(await world.graph.entities_citing(ana.org_id, [sid]))
    assert made_entities >= 2
    preview = await world.services.sharing.preview(team.request(sid), await world.ctx(ana))
    assert preview.records["entities"] == made_entities and preview.records["edges"] == 1
    assert set(preview.derived_following) >= {r.id for r in linked.promoted}
    applied = await world.services.sharing.apply(
        team.request(sid), await world.ctx(ana), preview.preview_token
    )
    assert len(applied.derived_ids) == made_entities + 1
    copies = await world.graph.entities_citing(ana.org_id, [applied.shared_id])
    assert {e.scope.scope for e in copies} == {MemoryScope.TEAM} and len(copies) == made_entities
    assert all(e.source_ids == (applied.shared_id,) for e in copies)
    chunks = await world.store.chunks_of_source(ana.org_id, applied.shared_id)
    copy = await world.store.get_source(ana.org_id, applied.shared_id)
    assert copy is not None and [c.role for c in chunks] == [t.role for t in SESSION]
    mentions = await world.graph.mentions_of(ana.org_id, [e.entity_id for e in copies])
    assert all(set(m) <= {c.chunk_id for c in chunks} for m in mentions.values())
    # bob now recalls the decision through the shared copy's records
    found = await world.search(bob, "decided SurrealDB storage")
    assert any(h.source_ids == [applied.shared_id] for h in found.derived)


async def test_a_shared_entity_never_reaches_who_cannot_read_its_source() -> None:
    team, _, _ = await _team()
    world, ana, bob = team.world, team.ana, team.bob
    sid = await seed_session(world, ana)  # private to ana
    made = await reflect(world, ana, sid)
    decision = next(c for c in made.candidates if c.type is CandidateType.DECISION)
    (entity,) = (await review(world, ana, decision.id)).promoted
    request = team.request(entity.id, ShareKind.ENTITY)
    preview = await world.services.sharing.preview(request, await world.ctx(ana))
    assert preview.allowed and preview.newly_visible == []
    assert preview.reach.visible == 1 and preview.reach.denied == 2  # bob and his agent
    assert preview.withheld["readers_without_sources"] == 2
    applied = await world.services.sharing.apply(
        request, await world.ctx(ana), preview.preview_token
    )
    assert applied.newly_visible_users == 0 and applied.newly_visible_agents == 0
    kept = (await world.graph.get_entities(ana.org_id, [applied.shared_id]))[applied.shared_id]
    assert kept.scope.scope is MemoryScope.TEAM and kept.source_ids == (sid,)
    found = await world.search(bob, "decided SurrealDB storage")
    assert found.derived == [] and found.results == []
    with pytest.raises(NotFoundError):  # bob cannot share (or learn of) what he cannot see
        await world.services.sharing.preview(request, await world.ctx(bob))
