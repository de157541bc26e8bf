"""Episode-aware retrieval through MemoryService, on the reference adapters."""

from datetime import UTC, datetime

import pytest

from application.enrichment.lane import EmbeddingLane
from application.memory.commands import ContextRequest, RememberRequest, SearchRequest
from application.memory.results import ContextPack, RememberResult, SearchResults
from application.memory.service import MemoryService
from application.retrieval.pipeline import RetrievalMode
from application.retrieval.recall import Recall
from domain.errors import InvalidInputError
from domain.models import Turn
from domain.reasons import ReasonCode
from domain.scopes import MemoryScope, SourceType
from tests.unit.application.conftest import Parts

ORG = "acme"


async def _remember(parts: Parts, request: RememberRequest) -> RememberResult:
    """As the owner; team memory as a teammate (the owner is no member of that team)."""
    if request.scope is MemoryScope.TEAM:
        space = await parts.world.space(ORG, MemoryScope.TEAM, request.scope_key, writes=True)
        mate = await parts.world.user(ORG, "teammate")
        await parts.world.member(space, mate)
        return await parts.service.remember(request, await parts.world.ctx(mate))
    return await parts.service.remember(request, parts.ctx)


async def _search(parts: Parts, request: SearchRequest) -> SearchResults:
    return await parts.service.search(request, parts.ctx)


async def _pack(parts: Parts, request: ContextRequest) -> ContextPack:
    return await parts.service.context_pack(request, parts.ctx)


def _talk(*lines: tuple[str, str], day: int = 1, **kw: object) -> RememberRequest:
    when = datetime(2031, 3, day, 9, 0, tzinfo=UTC)
    return RememberRequest(
        org_id=ORG,
        source_type=SourceType.CONVERSATION,
        occurred_at=when,
        turns=[Turn(role=role, content=text) for role, text in lines],
        **kw,  # type: ignore[arg-type]
    )


async def _seed(parts: Parts) -> dict[str, str]:
    ids = {}
    ids["kayak"] = (
        await _remember(
            parts,
            _talk(
                ("user", "I finally bought a kayak for the lake."),
                ("assistant", "Great! Remember a life vest."),
                ("user", "It is bright orange so I can spot it."),
                day=3,
            ),
        )
    ).source_id
    ids["tax"] = (
        await _remember(
            parts,
            _talk(
                ("user", "Help me sort my tax receipts."),
                ("assistant", "Group them by month first."),
                day=5,
            ),
        )
    ).source_id
    ids["team"] = (
        await _remember(
            parts,
            _talk(
                ("user", "The team kayak trip is booked, orange kayak included."),
                scope=MemoryScope.TEAM,
                scope_key="t1",
                day=6,
            ),
        )
    ).source_id
    return ids


async def test_turns_become_chunks_with_role_turn_index_and_the_session_time(parts: Parts) -> None:
    ids = await _seed(parts)
    source = await parts.store.get_source(ORG, ids["kayak"])
    assert source is not None and source.content.startswith("user: I finally bought a kayak")
    found = await _search(parts, SearchRequest(org_id=ORG, query="kayak colour"))
    kayak = [h for h in found.results if h.source_id == ids["kayak"]]
    assert {(h.role, h.turn_index) for h in kayak} >= {("user", 0), ("user", 2)}
    assert all(h.occurred_at == datetime(2031, 3, 3, 9, 0, tzinfo=UTC) for h in kayak)


async def test_every_signal_and_expansion_keeps_to_the_callers_spaces(parts: Parts) -> None:
    ids = await _seed(parts)
    await parts.service.lane.drain()  # the vector-only mode needs the vectors
    for mode in RetrievalMode:
        service = MemoryService(
            store=parts.store,
            index=parts.index,
            embedder=parts.embedder,
            tokens=parts.service._tokens,
            clock=parts.clock,
            ids=parts.service._ids,
            audit=parts.service._audit,
            recall=Recall(
                store=parts.store, index=parts.index, embedder=parts.embedder, retrieval_mode=mode
            ),
            lane=EmbeddingLane(store=parts.store, index=parts.index, embedder=parts.embedder),
        )
        found = await service.search(
            SearchRequest(org_id=ORG, query="orange kayak trip", limit=20), parts.ctx
        )
        sources = {h.source_id for h in found.results}
        assert ids["team"] not in sources, mode
        assert ids["kayak"] in sources, mode


async def test_a_strong_turn_brings_its_neighbour_and_the_reason_says_so(parts: Parts) -> None:
    await _seed(parts)
    found = await _search(
        parts, SearchRequest(org_id=ORG, query="what colour is my kayak", limit=10)
    )
    assert found.results[0].role == "user"
    reasons = " ".join(h.reason for h in found.results)
    assert "conversation" in reasons or "next to a strongly matching turn" in reasons


async def test_context_pack_groups_turns_by_episode_in_spoken_order(parts: Parts) -> None:
    ids = await _seed(parts)
    pack = await _pack(parts, ContextRequest(org_id=ORG, query="orange kayak life vest"))
    assert pack.episodes[0].source_id == ids["kayak"]
    assert pack.episodes[0].occurred_at == datetime(2031, 3, 3, 9, 0, tzinfo=UTC)
    first = [i for i in pack.items if i.source_id == ids["kayak"]]
    assert [i.turn_index for i in first] == sorted(i.turn_index or 0 for i in first)
    assert pack.items[: len(first)] == first  # grouped, best episode first
    assert all(i.reason for i in pack.items)


@pytest.mark.parametrize(
    ("turns", "content", "reason"),
    [
        ([], "", ReasonCode.INVALID_TURN),
        ([Turn(role="narrator", content="x")], "", ReasonCode.INVALID_TURN),
        ([Turn(role="user", content="  ")], "", ReasonCode.INVALID_TURN),
        (
            [Turn(role="user", content="x", occurred_at=datetime(2031, 1, 1))],
            "",
            ReasonCode.INVALID_REQUEST,
        ),
        ([Turn(role="user", content="x")], "also content", ReasonCode.INVALID_REQUEST),
    ],
)
async def test_bad_turns_are_refused_with_a_reason(
    parts: Parts, turns: list[Turn], content: str, reason: ReasonCode
) -> None:
    with pytest.raises(InvalidInputError) as caught:
        await _remember(parts, RememberRequest(org_id=ORG, content=content, turns=turns))
    assert caught.value.reason is reason


async def test_as_of_must_carry_a_zone() -> None:
    with pytest.raises(InvalidInputError):
        SearchRequest(org_id=ORG, query="x", as_of=datetime(2031, 1, 1)).validate()


async def test_a_counting_question_shows_one_turn_per_episode_first(parts: Parts) -> None:
    for day, plant in ((1, "fern"), (2, "cactus"), (3, "orchid")):
        await _remember(
            parts,
            _talk(
                ("user", f"I bought a {plant} plant today."),
                ("assistant", f"A {plant} plant needs light."),
                ("user", f"Where should the {plant} plant go?"),
                day=day,
            ),
        )
    counting = await _search(
        parts, SearchRequest(org_id=ORG, query="How many plants did I buy?", limit=3)
    )
    assert len({h.source_id for h in counting.results}) == 3


async def test_a_counting_question_also_searches_by_its_subject_alone(parts: Parts) -> None:
    await _remember(
        parts,
        _talk(
            ("user", "Our landlord finally fixed the heating."),
            ("user", "Also I saw a dermatologist on Monday about the rash."),
            day=2,
        ),
    )
    counting = await _search(
        parts, SearchRequest(org_id=ORG, query="How many dermatologist visits did I have?")
    )
    plain = await _search(parts, SearchRequest(org_id=ORG, query="Which dermatologist did I see?"))
    by_subject = [h for h in counting.results if h.signals.subject_vector_rank is not None]
    assert by_subject and "dermatologist" in by_subject[0].text
    assert "what the question counts" in by_subject[0].reason
    assert all(h.signals.subject_vector_rank is None for h in plain.results)
