"""A pack for a question nothing in memory is about holds a few items, not a budget of them.

Issue 14, finding 5: "the context pack fills its budget with unrelated items".
These run on the reference adapters with the hashing embedder (floor 0.5).
"""

from application.commands import ContextRequest, RememberRequest, SearchRequest
from application.retrieval.relevance import relatedness_floor
from domain.relevance_gate import WEAK_KEEP, WEAK_MATCH
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


async def test_search_is_not_gated(parts: Parts) -> None:
    await _fill(parts, _GARDEN)
    result = await parts.service.search(
        SearchRequest(org_id=ORG, query="quarterly dentist invoice", limit=20), parts.ctx
    )
    assert len(result.results) == 20


async def test_a_question_memory_is_about_keeps_its_budget(parts: Parts) -> None:
    await _fill(parts, [*_GARDEN, "The dentist sent the quarterly invoice."])
    pack = await parts.service.context_pack(
        ContextRequest(org_id=ORG, query="quarterly dentist invoice", token_budget=2000),
        parts.ctx,
    )
    assert pack.below_floor == 0
    assert len(pack.items) > WEAK_KEEP
    assert "dentist" in pack.items[0].text
    assert not any(WEAK_MATCH in item.reason for item in pack.items)


async def test_one_shared_common_word_does_not_open_the_budget(parts: Parts) -> None:
    # "day" is in every note; "dentist" and "invoice" in none
    await _fill(parts, _GARDEN)
    pack = await parts.service.context_pack(
        ContextRequest(org_id=ORG, query="dentist invoice day", token_budget=2000), parts.ctx
    )
    assert len(pack.items) <= WEAK_KEEP
    assert pack.below_floor > 0


def test_floors_are_looked_up_by_model_name() -> None:
    assert relatedness_floor("all-MiniLM-L6-v2-onnx-int8") == 0.20
    assert relatedness_floor("all-MiniLM-L6-v2") == 0.20
    assert relatedness_floor("hashing-bow-64") == 0.5
    assert relatedness_floor("text-embedding-3-small") is None
