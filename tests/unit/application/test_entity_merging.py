"""Entity merging: promoting an entity that names an existing one (same type, same space)."""

import msgspec

from application.ports.reflection_records import DerivedEntity
from application.reflection.commands import (
    ProposedCandidate,
    ProposedRelation,
    ProposedSpan,
    ProposeRequest,
    ReviewResult,
)
from application.reflection.merging import merge_entity, name_key
from application.trust.records import PrincipalRecord
from contracts.graph_store import sample_entity
from domain.policy import SpaceRole
from domain.reflection.candidates import CandidateType
from domain.scopes import MemoryScope
from tests.support.reflection import review
from tests.support.world import World

PERSON, TASK = CandidateType.PERSON, CandidateType.TASK
ALPHA = (MemoryScope.PROJECT, "alpha")


async def _relate(
    world: World,
    who: PrincipalRecord,
    sid: str,
    subject: str,
    obj: str,
    *,
    subject_type: CandidateType = PERSON,
    promote: bool = False,
) -> ReviewResult:
    """Propose ``subject owns obj`` citing the whole source and accept it (into alpha when
    ``promote``)."""
    assert world.services.reflection is not None
    source = await world.store.get_source(who.org_id, sid)
    assert source is not None
    relation = ProposedRelation(
        subject=subject, subject_type=subject_type, predicate="owns", object=obj, object_type=TASK
    )
    request = ProposeRequest(
        org_id=who.org_id,
        candidates=[
            ProposedCandidate(
                type=CandidateType.RELATIONSHIP,
                text=f"{subject} owns {obj}",
                spans=[ProposedSpan(source_id=sid, start=0, end=len(source.content))],
                relation=relation,
            )
        ],
    )
    made = await world.services.reflection.propose(request, await world.ctx(who))
    if promote:
        return await review(
            world, who, made.candidates[0].id, promote_to_scope=ALPHA[0], scope_key=ALPHA[1]
        )
    return await review(world, who, made.candidates[0].id)


async def _world() -> tuple[World, PrincipalRecord, PrincipalRecord, str]:
    world = World()
    org = await world.org("acme")
    ana, bob = await world.user(org, "ana"), await world.user(org, "bob")
    space = await world.space(org, MemoryScope.PROJECT, "alpha", writes=True)
    await world.member(space, ana)
    await world.member(space, bob, SpaceRole.READER)
    return world, ana, bob, org


def _from(entity: DerivedEntity, source: str) -> DerivedEntity:
    """The entity as another candidate (``c9``) citing ``source`` would promote it."""
    provenance = msgspec.structs.replace(
        entity.provenance, source_ids=(source,), source_hashes={source: "h2"}, candidate_id="c9"
    )
    return msgspec.structs.replace(entity, provenance=provenance)


def _ids(result: ReviewResult) -> dict[str, str]:
    return {r.id: r.type for r in result.promoted if r.kind == "entity"}


async def test_a_second_mention_of_a_person_merges_into_the_first() -> None:
    world, ana, _, org = await _world()
    one = (await world.remember(ana, "Maya owns the launch checklist.")).source_id
    two = (await world.remember(ana, "maya  also owns the rollback runbook.")).source_id
    first = await _relate(world, ana, one, "Maya", "the launch checklist")
    second = await _relate(world, ana, two, "maya ", "the rollback runbook")
    maya = next(i for i, t in _ids(first).items() if t == PERSON)
    assert maya in _ids(second)  # the accept answers with the record it merged into
    (merged,) = [
        e for e in (await world.graph.get_entities(org, [maya])).values() if e.type is PERSON
    ]
    assert merged.name == "Maya" and merged.source_ids == (one, two)
    assert merged.provenance.merged_from == (second.candidate.id,)
    assert merged.provenance.candidate_id == first.candidate.id  # the first promotion stays
    # one Maya: both relationships hang on it, and it mentions both sources' chunks
    edges = await world.graph.edges_of(org, maya)
    assert len(edges) == 2 and {e.from_id for e in edges} == {maya}
    mentions = (await world.graph.mentions_of(org, [maya]))[maya]
    chunks = {c.chunk_id for s in (one, two) for c in await world.store.chunks_of_source(org, s)}
    assert set(mentions) == chunks
    people = [e for e in await world.graph.entities_citing(org, [one, two]) if e.type is PERSON]
    assert [e.entity_id for e in people] == [maya]
    # recall: the one record, citing both sources
    found = await world.search(ana, "Maya")
    assert [d.source_ids for d in found.derived if d.type is PERSON] == [[one, two]]


async def test_other_spaces_and_other_types_are_not_merged() -> None:
    world, ana, _, org = await _world()
    mine = (await world.remember(ana, "Orion owns the launch checklist.")).source_id
    theirs = (await world.remember(ana, "Orion owns the runbook.", *ALPHA)).source_id
    project = (await world.remember(ana, "Orion owns the budget.")).source_id
    a = await _relate(world, ana, mine, "Orion", "the launch checklist")
    b = await _relate(world, ana, theirs, "Orion", "the runbook")
    c = await _relate(
        world, ana, project, "Orion", "the budget", subject_type=CandidateType.PROJECT
    )
    people = [set(_ids(r)) for r in (a, b, c)]
    assert not people[0] & people[1] and not people[0] & people[2]
    assert len(await world.graph.entities_citing(org, [mine, theirs, project])) == 6


async def test_a_merged_record_needs_every_source_readable() -> None:
    # ana's project note and her private note both name Maya; promoted into alpha, the
    # merged Maya cites both: bob reads alpha but not ana's private memory
    world, ana, bob, org = await _world()
    shared = (await world.remember(ana, "Maya owns the launch checklist.", *ALPHA)).source_id
    private = (await world.remember(ana, "Maya owns my tax return.")).source_id
    await _relate(world, ana, shared, "Maya", "the launch checklist")
    assert [d.name for d in (await world.search(bob, "Maya")).derived if d.type is PERSON] == [
        "Maya"
    ]
    await _relate(world, ana, private, "Maya", "my tax return", promote=True)
    seen = await world.search(bob, "Maya", limit=50)
    assert all(private not in d.source_ids for d in seen.derived)
    assert [d for d in seen.derived if d.type is PERSON] == []  # narrowed, never widened
    assert private not in {h.source_id for h in seen.results}
    mine = await world.search(ana, "Maya")
    assert [d.source_ids for d in mine.derived if d.type is PERSON] == [[shared, private]]
    assert org


def test_merging_keeps_the_first_promotion_and_joins_the_rest() -> None:
    old = sample_entity("p1", "Maya", PERSON)
    new = _from(sample_entity("p2", "MAYA", PERSON), "s2")
    merged = merge_entity(old, new)
    assert merged.entity_id == "p1" and merged.name == "Maya"
    assert merged.source_ids == ("s1", "s2")
    assert merged.provenance.source_hashes == {"s1": "h1", "s2": "h2"}
    assert merged.provenance.merged_from == ("c9",)
    assert merge_entity(merged, new) == merged  # merging again changes nothing
    assert name_key("  Maya \n Lin ") == name_key("maya lin") == "maya lin"


async def test_a_record_citing_what_the_reviewer_cannot_read_is_not_merged_into() -> None:
    # ana's Maya cites her private note (in alpha by promotion); lee writes alpha too but
    # cannot read ana's note: his Maya stays his own record, and his accept names none of
    # ana's sources
    world, ana, _, org = await _world()
    lee = await world.user(org, "lee")
    space = next(s for s in await world.services.spaces.list_spaces(org, None) if s.scope_key)
    await world.member(space, lee)
    private = (await world.remember(ana, "Maya owns my tax return.")).source_id
    mine = await _relate(world, ana, private, "Maya", "my tax return", promote=True)
    note = (await world.remember(lee, "Maya owns the launch checklist.", *ALPHA)).source_id
    his = await _relate(world, lee, note, "Maya", "the launch checklist")
    ana_maya = next(i for i, t in _ids(mine).items() if t == PERSON)
    lee_maya = next(i for i, t in _ids(his).items() if t == PERSON)
    assert lee_maya != ana_maya
    assert all(private not in r.source_ids for r in his.promoted)
    found = await world.graph.get_entities(org, [ana_maya, lee_maya])
    assert found[ana_maya].source_ids == (private,) and found[lee_maya].source_ids == (note,)
