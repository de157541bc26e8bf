"""SUPERSEDES over the reference adapters: by a candidate's words, by name, by correction."""

from datetime import UTC, datetime

import pytest

from application.corrections.commands import CorrectionRequest
from application.reflection.commands import ProposedCandidate, ProposedSpan, ProposeRequest
from application.reflection.superseding import link
from application.retrieval.wake_records import WakeRequest
from application.trust.records import PrincipalRecord
from domain.errors import NotFoundError
from domain.lifecycle import CorrectionAction
from domain.policy import SpaceRole
from domain.reflection.candidates import CandidateType
from domain.scopes import MemoryScope
from domain.wake import WakeSection
from tests.support.reflection import reflect, review
from tests.support.world import World

OLD = "We decided to go with SurrealDB for storage."
NEW = "We decided to go with Postgres instead of SurrealDB for storage."
T = datetime(2026, 3, 1, tzinfo=UTC)


async def _setup() -> tuple[World, PrincipalRecord, PrincipalRecord]:
    world = World()
    org = await world.org("acme")
    return world, await world.user(org, "ana"), await world.user(org, "bob")


async def _decide(
    world: World,
    who: PrincipalRecord,
    text: str,
    scope: MemoryScope = MemoryScope.PRIVATE,
    key: str | None = None,
) -> tuple[str, str]:
    """Remember, reflect and accept the decision; its source id and entity id."""
    sid = (await world.remember(who, text, scope, key)).source_id
    made = await reflect(world, who, sid)
    decision = next(c for c in made.candidates if c.type is CandidateType.DECISION)
    done = await review(world, who, decision.id)
    return sid, next(r.id for r in done.promoted if r.kind == "entity")


async def test_a_decision_that_says_what_it_replaces_supersedes_the_older_one() -> None:
    world, ana, _ = await _setup()
    _, old = await _decide(world, ana, OLD)
    await _decide(world, ana, "We decided to ship on Fridays.")  # names nothing replaced
    sid = (await world.remember(ana, NEW)).source_id
    made = await reflect(world, ana, sid)
    decision = next(c for c in made.candidates if c.type is CandidateType.DECISION)
    assert decision.replaces == "SurrealDB"
    done = await review(world, ana, decision.id)
    (link,) = [r for r in done.promoted if r.kind == "supersedes"]
    new = next(r.id for r in done.promoted if r.kind == "entity")
    assert link.older_id == old and link.source_ids == [sid]
    (edge,) = await world.graph.supersessions(ana.org_id, [old])
    assert (edge.newer_id, edge.older_id) == (new, old) and "accepted" in edge.reason
    # recall prefers the newer record and keeps the trail
    assert world.services.derived is not None
    hits = await world.services.derived.hits(ana.org_id, "storage decision", await world.ctx(ana))
    assert hits[0].entity_id == new and hits[-1].entity_id == old  # the trail comes last
    assert hits[0].supersedes == [old] and hits[-1].superseded_by == new
    assert all(h.superseded_by is None for h in hits[:-1])
    searched = await world.search(ana, "which storage decision")
    assert searched.derived[0].entity_id == new
    # the wake pack shows the newer only, naming what it replaced
    pack = await world.services.wake.wake(WakeRequest(org_id=ana.org_id), await world.ctx(ana))
    decisions = [i for i in pack.items if i.section is WakeSection.DECISIONS]
    assert old not in {i.entity_id for i in decisions}
    assert next(i for i in decisions if i.entity_id == new).supersedes == [old]


async def test_a_proposal_names_the_records_it_supersedes() -> None:
    world, ana, bob = await _setup()
    _, old = await _decide(world, ana, OLD)
    sid = (await world.remember(ana, "Storage: Postgres from now on.")).source_id

    async def propose(who: PrincipalRecord, ids: list[str]) -> str:
        assert world.services.reflection is not None
        request = ProposeRequest(
            org_id=who.org_id,
            candidates=[
                ProposedCandidate(
                    type=CandidateType.DECISION,
                    text="Storage is Postgres.",
                    spans=[ProposedSpan(source_id=sid, start=0, end=8)],
                    supersedes=ids,
                )
            ],
        )
        result = await world.services.reflection.propose(request, await world.ctx(who))
        return result.candidates[0].id

    missing = await propose(ana, ["no-such-record"])
    with pytest.raises(NotFoundError):
        await review(world, ana, missing)
    assert await world.graph.supersessions(ana.org_id, [old]) == []  # nothing written
    # bob cannot read ana's source, so he cannot propose from it either: nothing to accept
    bob_ctx = await world.ctx(bob)
    assert world.services.reflection is not None
    refused = await world.services.reflection.propose(
        ProposeRequest(
            org_id=bob.org_id,
            candidates=[
                ProposedCandidate(
                    type=CandidateType.DECISION,
                    text="x",
                    spans=[ProposedSpan(source_id=sid, start=0, end=1)],
                    supersedes=[old],
                )
            ],
        ),
        bob_ctx,
    )
    assert refused.candidates == [] and refused.refused[0].reason == "not_found"
    naming = await propose(ana, [old])
    done = await review(world, ana, naming)
    assert [r.older_id for r in done.promoted if r.kind == "supersedes"] == [old]


async def test_the_source_level_supersede_links_the_derived_records() -> None:
    world, ana, _ = await _setup()
    old_sid, old = await _decide(world, ana, OLD)
    new_sid, new = await _decide(world, ana, "We decided to go with Postgres for storage.")
    assert await world.graph.supersessions(ana.org_id, [old]) == []
    request = CorrectionRequest(
        action=CorrectionAction.SUPERSEDE, replacement_id=new_sid, reason="moved"
    )
    ctx = await world.ctx(ana)
    preview = await world.services.corrections.preview(ctx, old_sid, request)
    await world.services.corrections.apply(
        await world.ctx(ana), old_sid, request, preview.preview_token
    )
    (edge,) = await world.graph.supersessions(ana.org_id, [old])
    assert (edge.newer_id, edge.older_id) == (new, old)
    assert set(edge.source_ids) == {new_sid, old_sid} and old_sid in edge.reason


async def test_a_replacement_the_reader_cannot_see_leaves_the_older_record_as_it_is() -> None:
    world, ana, bob = await _setup()
    space = await world.space(ana.org_id, MemoryScope.PROJECT, "alpha", writes=True)
    await world.member(space, ana)
    await world.member(space, bob, SpaceRole.READER)
    _, old = await _decide(world, ana, OLD, MemoryScope.PROJECT, "alpha")
    _, new = await _decide(world, ana, NEW)  # ana's private memory replaces it for her
    assert (await world.graph.supersessions(ana.org_id, [old])) == []  # other space: no cue link
    # linked as a correction would (the private record replaces the project one, for ana)
    links = [link(*(await world.graph.get_entities(ana.org_id, [new, old])).values(), "test", T)]
    await world.graph.supersede(links)
    derived = world.services.derived
    assert derived is not None
    ana_hits = await derived.hits(ana.org_id, "storage decision", await world.ctx(ana))
    assert [(h.entity_id, h.superseded_by) for h in ana_hits] == [(new, None), (old, new)]
    bob_hits = await derived.hits(bob.org_id, "storage decision", await world.ctx(bob))
    assert [(h.entity_id, h.superseded_by, h.supersedes) for h in bob_hits] == [(old, None, [])]
