"""A question nothing in memory is about: a pack holds a few weak items, a search none.

These run on the reference adapters with the hashing embedder (meaning alone: 0.5);
tests/integration/test_relevance_gate_minilm.py runs the gate with the offline MiniLM.
"""

from application.memory.commands import ContextRequest, RememberRequest, SearchRequest
from application.retrieval.relevance import relatedness_floor, relatedness_floors
from domain.relevance_gate import NOTHING_RELEVANT, WEAK_KEEP, WEAK_MATCH, Floors
from tests.unit.application.conftest import Parts

ORG = "acme"
_GARDEN = [f"Note {i}: garden beds need watering on day {i}." for i in range(30)]


async def _fill(parts: Parts, texts: list[str]) -> None:
    for text in texts:
        await parts.service.remember(
            RememberRequest(org_id=ORG, content=text, wait="indexed"), parts.ctx
        )


async def test_an_unrelated_question_gets_a_few_weak_items_not_a_budget(parts: Parts) -> None:
    await _fill(parts, _GARDEN)
    pack = await parts.service.context_pack(
        ContextRequest(org_id=ORG, query="quarterly dentist invoice", token_budget=2000),
        parts.ctx,
    )
    assert 0 < len(pack.items) <= WEAK_KEEP
    assert all(WEAK_MATCH in item.reason for item in pack.items)
    assert pack.below_floor >= 30 - WEAK_KEEP - pack.omitted
    assert pack.reason == NOTHING_RELEVANT


async def test_a_search_nothing_in_memory_is_about_answers_nothing_and_says_why(
    parts: Parts,
) -> None:
    await _fill(parts, _GARDEN)
    result = await parts.service.search(
        SearchRequest(org_id=ORG, query="quarterly dentist invoice", limit=20), parts.ctx
    )
    assert result.results == []
    assert result.below_floor == 20
    assert result.reason == NOTHING_RELEVANT


async def test_a_search_for_one_result_is_judged_like_a_search_for_twenty(parts: Parts) -> None:
    # the gate reads the first forty candidates whatever the limit: the note that shares
    # the question's words ranks first, and a limit of one must not hide that memory is about it
    await _fill(parts, [*_GARDEN, "The dentist sent the quarterly invoice."])
    for limit in (1, 20):
        result = await parts.service.search(
            SearchRequest(org_id=ORG, query="quarterly dentist invoice", limit=limit),
            parts.ctx,
        )
        assert result.below_floor == 0 and result.reason is None
        assert "dentist" in result.results[0].text


async def test_a_question_memory_is_about_keeps_its_budget(parts: Parts) -> None:
    await _fill(parts, [*_GARDEN, "The dentist sent the quarterly invoice."])
    pack = await parts.service.context_pack(
        ContextRequest(org_id=ORG, query="quarterly dentist invoice", token_budget=2000),
        parts.ctx,
    )
    assert pack.below_floor == 0 and pack.reason is None
    assert len(pack.items) > WEAK_KEEP
    assert "dentist" in pack.items[0].text
    assert not any(WEAK_MATCH in item.reason for item in pack.items)


def test_floors_are_looked_up_by_model_name() -> None:
    assert relatedness_floor("all-MiniLM-L6-v2-onnx-int8") == 0.20
    assert relatedness_floor("all-MiniLM-L6-v2") == 0.20
    assert relatedness_floors("all-MiniLM-L6-v2") == Floors(near=0.20, alone=0.40)
    assert relatedness_floor("hashing-bow-64") == 0.5
    assert relatedness_floors("hashing-bow-64") == Floors(near=-1.0, alone=0.5)
    assert relatedness_floor("text-embedding-3-small") is None
    assert relatedness_floors("text-embedding-3-small") is None
