"""Reflect, review and promote over the reference adapters, through the real policy."""

import pytest

from application.reflection.commands import (
    ProposedCandidate,
    ProposedSpan,
    ProposeRequest,
    ReflectRequest,
)
from application.trust.records import PrincipalRecord
from domain.errors import ConflictError, InvalidInputError, NotFoundError, PolicyDeniedError
from domain.policy import SpaceRole
from domain.reasons import ReasonCode
from domain.reflection.candidates import CandidateType, ReviewAction, ReviewState
from domain.scopes import MemoryScope
from tests.support.reflection import reflect, review, seed_session
from tests.support.world import World


async def _setup(
    trusted: frozenset[str] = frozenset(),
) -> tuple[World, PrincipalRecord, PrincipalRecord]:
    world = World(trusted_extractors=trusted)
    org = await world.org("acme")
    return world, await world.user(org, "ana"), await world.user(org, "bob")


async def test_reflect_proposes_pending_candidates_that_cite_their_spans() -> None:
    world, ana, _ = await _setup()
    sid = await seed_session(world, ana)
    result = await reflect(world, ana, sid)
    source = await world.store.get_source(ana.org_id, sid)
    assert source is not None and result.sources == 1 and result.skipped == []
    kinds = {c.type for c in result.candidates}
    assert {CandidateType.DECISION, CandidateType.TASK, CandidateType.PERSON} <= kinds
    assert CandidateType.RELATIONSHIP in kinds
    decision = next(c for c in result.candidates if c.type is CandidateType.DECISION)
    assert decision.state is ReviewState.PENDING and decision.source_ids == [sid]
    assert decision.suggested_scope == f"private/{ana.principal_id}"
    (span,) = decision.spans
    assert source.content[span.start : span.end] == decision.text
    assert decision.extractor == "rules" and decision.extractor_version == "3"
    # reflecting again finds the same candidates and adds none
    again = await reflect(world, ana, sid)
    assert [c.id for c in again.candidates] == [c.id for c in result.candidates]
    listed = await world.services.review.list_candidates(ana.org_id, await world.ctx(ana))  # type: ignore[union-attr]
    assert len(listed.candidates) == len(result.candidates)


async def test_reflect_reads_only_what_the_caller_may_read() -> None:
    world, ana, bob = await _setup()
    sid = await seed_session(world, ana)
    result = await reflect(world, bob, sid, "nope")
    assert result.candidates == [] and result.sources == 0
    assert {(s.source_id, s.reason) for s in result.skipped} == {
        (sid, ReasonCode.NOT_FOUND),
        ("nope", ReasonCode.NOT_FOUND),
    }
    # ana's candidates are invisible to bob, as candidates and by id
    made = await reflect(world, ana, sid)
    listed = await world.services.review.list_candidates(bob.org_id, await world.ctx(bob))  # type: ignore[union-attr]
    assert listed.candidates == []
    with pytest.raises(NotFoundError):
        await review(world, bob, made.candidates[0].id)


async def test_reflect_over_a_space_and_request_checks() -> None:
    world, ana, bob = await _setup()
    space = await world.space(ana.org_id, MemoryScope.PROJECT, "alpha", writes=True)
    await world.member(space, ana)
    sid = await seed_session(world, ana, MemoryScope.PROJECT, "alpha")
    assert world.services.reflection is not None
    ok = await world.services.reflection.reflect(
        ReflectRequest(org_id=ana.org_id, space="project/alpha"), await world.ctx(ana)
    )
    assert ok.sources == 1 and all(c.source_ids == [sid] for c in ok.candidates)
    with pytest.raises(PolicyDeniedError) as refused:
        await world.services.reflection.reflect(
            ReflectRequest(org_id=bob.org_id, space="project/alpha"), await world.ctx(bob)
        )
    assert refused.value.reason is ReasonCode.UNVERIFIED_MEMBERSHIP
    for bad in (
        ReflectRequest(org_id=ana.org_id),
        ReflectRequest(org_id=ana.org_id, source_ids=[sid], space="project/alpha"),
        ReflectRequest(org_id=ana.org_id, source_ids=[sid], extractor="magic"),
    ):
        with pytest.raises(InvalidInputError):
            await world.services.reflection.reflect(bad, await world.ctx(ana))
    with pytest.raises(InvalidInputError) as no_llm:
        await world.services.reflection.reflect(
            ReflectRequest(org_id=ana.org_id, source_ids=[sid], extractor="llm"),
            await world.ctx(ana),
        )
    assert no_llm.value.reason is ReasonCode.LLM_NOT_CONFIGURED


async def test_accept_promotes_native_records_with_provenance() -> None:
    world, ana, _ = await _setup()
    sid = await seed_session(world, ana)
    made = await reflect(world, ana, sid)
    decision = next(c for c in made.candidates if c.type is CandidateType.DECISION)
    done = await review(world, ana, decision.id)
    assert done.candidate.state is ReviewState.ACCEPTED
    (record,) = done.promoted
    assert (record.kind, record.type, record.source_ids) == ("entity", "decision", [sid])
    entity = (await world.graph.get_entities(ana.org_id, [record.id]))[record.id]
    source = await world.store.get_source(ana.org_id, sid)
    assert source is not None
    assert entity.provenance.source_hashes == {sid: source.content_hash}
    assert entity.provenance.transform == "rules@3"
    assert entity.provenance.decision_reason == "allowed" and entity.provenance.decision_id
    mentions = await world.graph.mentions_of(ana.org_id, [record.id])
    chunks = await world.store.chunks_of_source(ana.org_id, sid)
    assert mentions[record.id] == [chunks[0].chunk_id]  # the turn that says it
    # a relationship becomes two entities and a typed edge
    relation = next(c for c in made.candidates if c.type is CandidateType.RELATIONSHIP)
    linked = await review(world, ana, relation.id)
    kinds = sorted((r.kind, r.type) for r in linked.promoted)
    assert kinds == [("entity", "decision"), ("entity", "person"), ("relates_to", "decided")]
    (edge,) = await world.graph.edges_of(ana.org_id, linked.promoted[0].id)
    assert edge.kind == "decided" and edge.provenance.source_ids == (sid,)
    # accepted is final
    with pytest.raises(ConflictError) as again:
        await review(world, ana, decision.id, ReviewAction.REJECT)
    assert again.value.reason is ReasonCode.TRANSITION_NOT_ALLOWED


async def test_reject_and_defer_follow_the_state_machine() -> None:
    world, ana, _ = await _setup()
    made = await reflect(world, ana, await seed_session(world, ana))
    first, second = made.candidates[0].id, made.candidates[1].id
    assert (await review(world, ana, first, ReviewAction.DEFER)).candidate.state == "deferred"
    with pytest.raises(ConflictError):
        await review(world, ana, first, ReviewAction.DEFER)
    assert (await review(world, ana, first, ReviewAction.REJECT)).candidate.state == "rejected"
    with pytest.raises(ConflictError):
        await review(world, ana, first, ReviewAction.ACCEPT)
    assert world.services.review is not None
    pending = await world.services.review.list_candidates(
        ana.org_id, await world.ctx(ana), ReviewState.REJECTED
    )
    assert [c.id for c in pending.candidates] == [first]
    with pytest.raises(InvalidInputError):
        await review(world, ana, second, ReviewAction.REJECT, MemoryScope.PROJECT, "alpha")


async def test_derived_records_surface_only_to_readers_of_every_source() -> None:
    world, ana, bob = await _setup()
    space = await world.space(ana.org_id, MemoryScope.PROJECT, "alpha", writes=True)
    await world.member(space, ana)
    await world.member(space, bob, SpaceRole.READER)
    sid = await seed_session(world, ana)  # ana's private session
    decision = next(
        c for c in (await reflect(world, ana, sid)).candidates if c.type is CandidateType.DECISION
    )
    assert world.services.derived is not None
    derived = world.services.derived
    with pytest.raises(NotFoundError):  # bob cannot read its source, so cannot see it
        await review(world, bob, decision.id)
    await review(world, ana, decision.id, promote_to_scope=MemoryScope.PROJECT, scope_key="alpha")
    hits = await derived.hits(ana.org_id, "storage decision", await world.ctx(ana))
    assert [h.source_ids for h in hits] == [[sid]]
    # bob reads the project, not ana's private source: the entity never reaches him
    assert await derived.hits(bob.org_id, "storage decision", await world.ctx(bob)) == []


async def test_scope_crossing_needs_an_explicit_allowed_promotion() -> None:
    world, ana, _ = await _setup()
    space = await world.space(ana.org_id, MemoryScope.PROJECT, "alpha", writes=True)
    await world.member(space, ana)
    private = await seed_session(world, ana)
    shared = await seed_session(world, ana, MemoryScope.PROJECT, "alpha")
    assert world.services.reflection is not None
    ctx = await world.ctx(ana)
    proposed = await world.services.reflection.propose(
        ProposeRequest(
            org_id=ana.org_id,
            candidates=[
                # one source, suggested into a broader space
                ProposedCandidate(
                    type=CandidateType.DECISION,
                    text="Storage is SurrealDB.",
                    spans=[ProposedSpan(source_id=private, start=0, end=10)],
                    suggested_scope=MemoryScope.PROJECT,
                    suggested_scope_key="alpha",
                ),
                # two spaces mixed
                ProposedCandidate(
                    type=CandidateType.FACT,
                    text="Both sessions chose SurrealDB.",
                    spans=[
                        ProposedSpan(source_id=private, start=0, end=10),
                        ProposedSpan(source_id=shared, start=0, end=10),
                    ],
                ),
            ],
        ),
        ctx,
    )
    broader, mixed = proposed.candidates
    assert broader.extractor == "caller" and mixed.mixed_scope
    assert mixed.suggested_scope == f"private/{ana.principal_id}"  # the narrowest input
    for candidate in (broader, mixed):
        with pytest.raises(PolicyDeniedError) as refused:
            await review(world, ana, candidate.id)
        assert refused.value.reason is ReasonCode.SCOPE_CROSSING_REQUIRES_PROMOTION
    # an explicit target the policy allows
    done = await review(
        world, ana, mixed.id, promote_to_scope=MemoryScope.PROJECT, scope_key="alpha"
    )
    assert done.candidate.promoted_scope == "project/alpha"
    # an explicit target the caller may not write
    with pytest.raises(PolicyDeniedError) as disabled:
        await review(world, ana, broader.id, promote_to_scope=MemoryScope.ORGANIZATION)
    assert disabled.value.reason is ReasonCode.SCOPE_DISABLED


async def test_proposals_are_checked_span_by_span() -> None:
    world, ana, bob = await _setup()
    sid = await seed_session(world, ana)
    source = await world.store.get_source(ana.org_id, sid)
    assert source is not None and world.services.reflection is not None
    quote = source.content[6:16]

    def proposal(*spans: ProposedSpan, **kw: object) -> ProposedCandidate:
        return ProposedCandidate(
            type=CandidateType.DECISION,
            text="Use SurrealDB.",
            spans=list(spans),
            **kw,  # type: ignore[arg-type]
        )

    result = await world.services.reflection.propose(
        ProposeRequest(
            org_id=ana.org_id,
            candidates=[
                proposal(ProposedSpan(source_id=sid, start=6, end=16, quote=quote)),
                proposal(ProposedSpan(source_id=sid, start=6, end=10_000)),
                proposal(ProposedSpan(source_id=sid, start=6, end=16, quote="not there")),
                proposal(ProposedSpan(source_id="missing", start=0, end=1)),
                proposal(),
                proposal(ProposedSpan(source_id=sid, start=0, end=1), confidence=3.0),
            ],
        ),
        await world.ctx(ana),
    )
    assert len(result.candidates) == 1
    assert [(r.index, r.reason) for r in result.refused] == [
        (1, ReasonCode.SPAN_OUT_OF_RANGE),
        (2, ReasonCode.SPAN_MISMATCH),
        (3, ReasonCode.NOT_FOUND),
        (4, ReasonCode.INVALID_REQUEST),
        (5, ReasonCode.INVALID_REQUEST),
    ]
    assert all("SurrealDB" not in r.detail for r in result.refused)
    # bob cites ana's private source: as if it did not exist
    theirs = await world.services.reflection.propose(
        ProposeRequest(
            org_id=bob.org_id, candidates=[proposal(ProposedSpan(source_id=sid, start=0, end=4))]
        ),
        await world.ctx(bob),
    )
    assert theirs.candidates == [] and theirs.refused[0].reason is ReasonCode.NOT_FOUND


async def test_a_source_hidden_after_promotion_takes_its_records_along() -> None:
    from application.corrections.commands import CorrectionRequest
    from domain.lifecycle import CorrectionAction

    world, ana, _ = await _setup()
    sid = await seed_session(world, ana)
    made = await reflect(world, ana, sid)
    decision = next(c for c in made.candidates if c.type is CandidateType.DECISION)
    task = next(c for c in made.candidates if c.type is CandidateType.TASK)
    await review(world, ana, decision.id)
    assert world.services.derived is not None
    assert await world.services.derived.hits(ana.org_id, "storage", await world.ctx(ana))
    hide = CorrectionRequest(action=CorrectionAction.HIDE)
    preview = await world.services.corrections.preview(await world.ctx(ana), sid, hide)
    await world.services.corrections.apply(await world.ctx(ana), sid, hide, preview.preview_token)
    assert await world.services.derived.hits(ana.org_id, "storage", await world.ctx(ana)) == []
    # its candidates are gone from review too, and cannot be accepted
    with pytest.raises(NotFoundError):
        await review(world, ana, task.id)
    again = await reflect(world, ana, sid)
    assert again.candidates == [] and again.skipped[0].reason is ReasonCode.HIDDEN_SOURCE


async def test_the_auto_accept_rule_promotes_only_safe_candidates_of_trusted_extractors() -> None:
    world, ana, _ = await _setup(trusted=frozenset({"rules"}))
    result = await reflect(world, ana, await seed_session(world, ana))
    states = {(c.type, c.confidence >= 0.9): c.state for c in result.candidates}
    assert result.auto_accepted == sum(1 for c in result.candidates if c.state == "accepted") > 0
    assert states[(CandidateType.DECISION, True)] is ReviewState.ACCEPTED
    assert states[(CandidateType.TASK, False)] is ReviewState.PENDING  # "I will": 0.7
    untrusted, ana2, _ = await _setup()
    plain = await reflect(untrusted, ana2, await seed_session(untrusted, ana2))
    assert plain.auto_accepted == 0


async def test_receipts_carry_ids_and_counts_never_text() -> None:
    world, ana, _ = await _setup()
    sid = await seed_session(world, ana)
    made = await reflect(world, ana, sid)
    await review(world, ana, made.candidates[0].id)
    await world.services.audit.flush()
    receipts = await world.audit_log.recent(ana.org_id, 100)
    actions = {r.action for r in receipts}
    assert {"reflect", "candidate_accept"} <= actions
    for receipt in receipts:
        assert "SurrealDB" not in repr(receipt) and "migration" not in repr(receipt)


async def test_search_recalls_through_promoted_records_with_their_sources() -> None:
    world, ana, bob = await _setup()
    sid = await seed_session(world, ana)
    before = await world.search(ana, "what storage decision")
    assert before.derived == [] and all(h.signals.entity_rank is None for h in before.results)
    made = await reflect(world, ana, sid)
    decision = next(c for c in made.candidates if c.type is CandidateType.DECISION)
    done = await review(world, ana, decision.id)
    after = await world.search(ana, "what storage decision")
    (hit,) = after.derived
    assert (hit.entity_id, hit.type, hit.source_ids) == (done.promoted[0].id, "decision", [sid])
    supported = [h for h in after.results if h.signals.entity_rank == 1]
    assert [h.chunk_id for h in supported] == hit.chunk_ids
    assert "promoted record" in supported[0].reason
    pack = await world.pack(ana, "what storage decision")
    assert [d.entity_id for d in pack.derived] == [hit.entity_id]
    assert (await world.search(bob, "what storage decision")).derived == []


async def test_deleting_or_redacting_a_source_removes_what_quotes_it() -> None:
    from application.corrections.commands import CorrectionRequest
    from domain.lifecycle import CorrectionAction

    world, ana, _ = await _setup()
    sid = await seed_session(world, ana)
    made = await reflect(world, ana, sid)
    decision = next(c for c in made.candidates if c.type is CandidateType.DECISION)
    done = await review(world, ana, decision.id)
    delete = CorrectionRequest(action=CorrectionAction.DELETE)
    preview = await world.services.corrections.preview(await world.ctx(ana), sid, delete)
    await world.services.corrections.apply(await world.ctx(ana), sid, delete, preview.preview_token)
    assert await world.graph.get_entities(ana.org_id, [done.promoted[0].id]) == {}
    assert await world.candidates.list_candidates(ana.org_id, None, None, 100) == []
