"""Speakers through the use cases: kept verbatim beside the words, read by the ranker,
shown on hits and pack items."""

import pytest

from application.memory.commands import ContextRequest, RememberRequest, SearchRequest
from domain.errors import InvalidInputError
from domain.models import Turn
from domain.reasons import ReasonCode
from domain.scopes import SourceType
from tests.unit.application.conftest import Parts

ORG = "acme"


def _talk(*said: tuple[str, str | None, str]) -> RememberRequest:
    return RememberRequest(
        org_id=ORG,
        source_type=SourceType.CONVERSATION,
        turns=[Turn(role=role, content=text, speaker=who) for role, who, text in said],
    )


async def test_the_ranker_tells_two_first_person_turns_apart_by_speaker(parts: Parts) -> None:
    # the same words from two people: only the speaker's name can order them
    await parts.service.remember(
        _talk(
            ("user", "Sam", "I ran my first marathon last weekend!"),
            ("assistant", "Maya", "I ran my first marathon last weekend!"),
        ),
        parts.ctx,
    )
    for name in ("Maya", "Sam"):
        found = await parts.service.search(
            SearchRequest(org_id=ORG, query=f"When did {name} run a marathon?"), parts.ctx
        )
        assert [h.speaker for h in found.results] == [name, "Sam" if name == "Maya" else "Maya"]
        assert found.results[0].text == "I ran my first marathon last weekend!"


async def test_pack_items_carry_their_speakers(parts: Parts) -> None:
    result = await parts.service.remember(
        _talk(
            ("user", "Sam", "Did you end up adopting the cat from the shelter?"),
            ("assistant", "Maya", "Yes!! We called him Pixel, he's tiny."),
        ),
        parts.ctx,
    )
    pack = await parts.service.context_pack(
        ContextRequest(org_id=ORG, query="What did Maya name the cat she adopted?"), parts.ctx
    )
    assert [(i.speaker, i.role, i.turn_index) for i in pack.items] == [
        ("Sam", "user", 0),
        ("Maya", "assistant", 1),
    ]
    chunks = await parts.store.get_chunks(ORG, result.chunk_ids)
    assert chunks[result.chunk_ids[1]].text == "Yes!! We called him Pixel, he's tiny."


async def test_the_speaker_does_not_change_what_is_embedded(parts: Parts) -> None:
    await parts.service.remember(_talk(("user", "Maya", "Lovely weather.")), parts.ctx)
    await parts.service.lane.drain()
    again = await parts.service.remember(_talk(("user", None, "Lovely weather.")), parts.ctx)
    assert again.cached_embeddings == 1


async def test_turns_without_speakers_are_indexed_as_before(parts: Parts) -> None:
    result = await parts.service.remember(_talk(("user", None, "Plain words here.")), parts.ctx)
    found = await parts.service.search(SearchRequest(org_id=ORG, query="plain words"), parts.ctx)
    assert found.results[0].chunk_id == result.chunk_ids[0]
    assert found.results[0].speaker is None


@pytest.mark.parametrize("speaker", ["", "  ", "Maya\nSam", "x" * 101])
async def test_a_bad_speaker_is_refused_before_anything_is_written(
    parts: Parts, speaker: str
) -> None:
    with pytest.raises(InvalidInputError) as caught:
        await parts.service.remember(_talk(("user", speaker, "hello")), parts.ctx)
    assert caught.value.reason is ReasonCode.INVALID_TURN
    assert "turn 0: speaker" in str(caught.value.detail)
    assert await parts.store.count_chunks(ORG) == 0
