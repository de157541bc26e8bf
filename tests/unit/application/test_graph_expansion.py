"""Graph expansion and relationship facts in recall: what only a relationship reaches."""

from application.memory.commands import SearchRequest
from application.memory.results import SearchResults
from application.reflection.commands import (
    ProposedCandidate,
    ProposedRelation,
    ProposedSpan,
    ProposeRequest,
)
from application.trust.records import PrincipalRecord
from domain.policy import SpaceRole
from domain.reflection.candidates import CandidateType
from domain.scopes import MemoryScope
from tests.support.reflection import review
from tests.support.world import World

KICKOFF = "Kickoff notes: Orion is led by Priya."
RUNBOOK = "Priya owns the rollback runbook for the payments cluster."
FILLER = [
    f"Filler note {n}: the weekly status report for team {n} looks routine." for n in range(40)
]


async def _relate(
    world: World,
    who: PrincipalRecord,
    sid: str,
    text: str,
    relation: ProposedRelation,
) -> None:
    """Propose a relationship citing the whole source, and accept it where it is."""
    assert world.services.reflection is not None
    source = await world.store.get_source(who.org_id, sid)
    assert source is not None
    request = ProposeRequest(
        org_id=who.org_id,
        candidates=[
            ProposedCandidate(
                type=CandidateType.RELATIONSHIP,
                text=text,
                spans=[ProposedSpan(source_id=sid, start=0, end=len(source.content))],
                relation=relation,
            )
        ],
    )
    made = await world.services.reflection.propose(request, await world.ctx(who))
    await review(world, who, made.candidates[0].id)


def _rel(
    subject: str, st: CandidateType, predicate: str, obj: str, ot: CandidateType
) -> ProposedRelation:
    return ProposedRelation(
        subject=subject, subject_type=st, predicate=predicate, object=obj, object_type=ot
    )


async def _world(
    runbook_scope: MemoryScope = MemoryScope.PROJECT,
) -> tuple[World, PrincipalRecord, PrincipalRecord, str, str]:
    world = World()
    org = await world.org("acme")
    ana, bob = await world.user(org, "ana"), await world.user(org, "bob")
    space = await world.space(org, MemoryScope.PROJECT, "alpha", writes=True)
    await world.member(space, ana)
    await world.member(space, bob, SpaceRole.READER)
    alpha = (MemoryScope.PROJECT, "alpha")
    kickoff = (await world.remember(ana, KICKOFF, *alpha)).source_id
    for n, text in enumerate(FILLER):
        await world.remember(ana, text, *alpha) if n % 2 else await world.remember(ana, text)
    # last: where every other leg ties (no shared word), the newest ranks last
    key = "alpha" if runbook_scope is MemoryScope.PROJECT else None
    runbook = (await world.remember(ana, RUNBOOK, runbook_scope, key)).source_id
    person, project = CandidateType.PERSON, CandidateType.PROJECT
    await _relate(
        world,
        ana,
        kickoff,
        "Orion is led by Priya",
        _rel("Orion", project, "led_by", "Priya", person),
    )
    await _relate(
        world,
        ana,
        runbook,
        "Priya owns the rollback runbook",
        _rel("Priya", person, "owns", "rollback runbook", CandidateType.ARTIFACT),
    )
    return world, ana, bob, kickoff, runbook


async def _search(world: World, who: PrincipalRecord, query: str, limit: int = 5) -> SearchResults:
    request = SearchRequest(org_id=who.org_id, query=query, limit=limit)
    return await world.services.memory.search(request, await world.ctx(who))


async def test_an_answer_reachable_only_through_a_relationship_comes_back() -> None:
    world, ana, _, kickoff, runbook = await _world()
    query = "Orion"
    found = await _search(world, ana, query)
    by_source = {h.source_id: h for h in found.results}
    assert kickoff in by_source and runbook in by_source
    assert by_source[runbook].signals.graph_rank is not None
    assert "through a relationship" in by_source[runbook].reason
    # the same memory without derived signals: the runbook shares no word with the query
    world.services.recall._derived = None  # the A/B switch
    raw = await _search(world, ana, query)
    assert runbook not in {h.source_id for h in raw.results}


async def test_relationship_facts_are_a_signal() -> None:
    world, ana, _, _, runbook = await _world()
    found = await _search(world, ana, "who owns the rollback runbook", limit=10)
    hit = next(h for h in found.results if h.source_id == runbook)
    assert hit.signals.relation_rank == 1


async def test_expansion_never_surfaces_what_the_caller_cannot_read() -> None:
    # the runbook is ana's private memory; bob reads the project (the kickoff) only
    world, ana, bob, kickoff, runbook = await _world(MemoryScope.PRIVATE)
    assert runbook in {h.source_id for h in (await _search(world, ana, "Orion")).results}
    for query in ("Orion", "Priya", "rollback runbook owner"):
        seen = await _search(world, bob, query, limit=50)
        assert runbook not in {h.source_id for h in seen.results}, query
        assert all(runbook not in d.source_ids for d in seen.derived), query
    assert kickoff in {h.source_id for h in (await _search(world, bob, "Orion")).results}
