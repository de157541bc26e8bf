"""Conversation-aware recall through the use cases, on the reference adapters: the reply
comes with its question, windows keep to what the caller may read, the switch turns it all
off, and a pack's rendering fits its budget."""

from datetime import UTC, datetime

import pytest

from application.corrections.commands import CorrectionRequest
from application.enrichment.lane import EmbeddingLane
from application.memory.commands import ContextRequest, RememberRequest, SearchRequest
from application.memory.service import MemoryService
from application.retrieval.conversation import unnamed_query
from application.retrieval.options import ConversationRecall
from application.retrieval.recall import Recall
from benchmarks.conversations._options import parse_conversation
from domain.lifecycle import CorrectionAction
from domain.models import Turn
from domain.scopes import SourceType
from tests.unit.application.conftest import Parts

ORG = "acme"
_TALK = (
    ("user", "Sam", "Morning! Got a minute?"),
    ("assistant", "Maya", "Always. What's up?"),
    ("user", "Sam", "Did you end up adopting the cat from the shelter?"),
    ("assistant", "Maya", "Yes!! We called him Pixel, he's tiny."),
    ("user", "Sam", "The bus was late again this morning."),
    ("assistant", "Maya", "Every single day."),
)
QUESTION = "What did Maya name the cat she adopted from the shelter?"


def _talk(day: int = 8) -> RememberRequest:
    return RememberRequest(
        org_id=ORG,
        source_type=SourceType.CONVERSATION,
        occurred_at=datetime(2023, 5, day, 18, 30, tzinfo=UTC),
        turns=[Turn(role=r, speaker=who, content=text) for r, who, text in _TALK],
    )


def _service(parts: Parts, conversation: ConversationRecall) -> MemoryService:
    recall = Recall(
        store=parts.store, index=parts.index, embedder=parts.embedder, conversation=conversation
    )
    return MemoryService(
        store=parts.store,
        index=parts.index,
        embedder=parts.embedder,
        tokens=parts.service._tokens,
        clock=parts.clock,
        ids=parts.service._ids,
        audit=parts.service._audit,
        recall=recall,
        lane=EmbeddingLane(store=parts.store, index=parts.index, embedder=parts.embedder),
    )


@pytest.mark.parametrize("windows", [False, True])
async def test_the_reply_ranks_first_and_the_pack_shows_the_question_before_it(
    parts: Parts, windows: bool
) -> None:
    await parts.service.remember(_talk(), parts.ctx)
    service = _service(parts, ConversationRecall(windows=windows))
    found = await service.search(SearchRequest(org_id=ORG, query=QUESTION), parts.ctx)
    texts = [h.text for h in found.results]
    reply = texts.index("Yes!! We called him Pixel, he's tiny.")
    assert reply <= 1 and _TALK[2][2] in texts
    # the pack shows the turn it answers right before it, whatever the ranking
    pack = await service.context_pack(ContextRequest(org_id=ORG, query=QUESTION), parts.ctx)
    lines = pack.rendered.splitlines()
    asked = next(n for n, line in enumerate(lines) if _TALK[2][2] in line)
    assert "Pixel" in lines[asked + 1]
    hit = found.results[reply]
    # why: it answers a matching turn (the learned weights name the neighbour it sits by)
    whys = ("reply to a matching turn", "next to a strongly matching turn")
    assert hit.speaker == "Maya" and any(why in hit.reason for why in whys)
    assert (hit.signals.window_rank is not None) is windows
    assert ("inside a window of turns that matched" in hit.reason) is windows


async def test_switched_off_no_conversation_rule_runs(parts: Parts) -> None:
    await parts.service.remember(_talk(), parts.ctx)
    service = _service(parts, ConversationRecall.off())
    found = await service.search(SearchRequest(org_id=ORG, query=QUESTION), parts.ctx)
    reasons = " ".join(h.reason for h in found.results)
    assert found.results and "reply to a matching turn" not in reasons
    assert "whom the question names" not in reasons
    assert not ConversationRecall.off().enabled and ConversationRecall().enabled


@pytest.mark.parametrize("action", [CorrectionAction.HIDE, CorrectionAction.REDACT])
async def test_no_window_carries_a_hidden_or_redacted_turn_into_results_or_packs(
    parts: Parts, action: CorrectionAction
) -> None:
    hidden = (await parts.service.remember(_talk(8), parts.ctx)).source_id
    # the same question asked in a later talk, answered by a reply that must stay
    kept = await parts.service.remember(
        RememberRequest(
            org_id=ORG,
            source_type=SourceType.CONVERSATION,
            occurred_at=datetime(2023, 6, 1, tzinfo=UTC),
            turns=[
                Turn(role="user", speaker="Sam", content="Did you adopt the cat in the end?"),
                Turn(role="assistant", speaker="Maya", content="Not yet, next week maybe."),
            ],
        ),
        parts.ctx,
    )
    corrections = parts.world.services.corrections
    request = (
        CorrectionRequest(action=action, summary="an adoption")
        if action is CorrectionAction.REDACT
        else CorrectionRequest(action=action)
    )
    preview = await corrections.preview(parts.ctx, hidden, request)
    await corrections.apply(parts.ctx, hidden, request, preview.preview_token)
    service = _service(parts, ConversationRecall(windows=True))  # every part on
    found = await service.search(SearchRequest(org_id=ORG, query=QUESTION), parts.ctx)
    pack = await service.context_pack(ContextRequest(org_id=ORG, query=QUESTION), parts.ctx)
    assert {h.source_id for h in found.results} == {kept.source_id}
    assert {i.source_id for i in pack.items} == {kept.source_id}
    assert "Pixel" not in pack.rendered and "shelter" not in pack.rendered
    assert all("Pixel" not in h.text for h in found.results)


async def test_a_pack_renders_within_its_budget_with_speaker_and_episode_time(
    parts: Parts,
) -> None:
    for day in range(1, 9):
        await parts.service.remember(_talk(day), parts.ctx)
    for budget in (100, 300, 2000):
        pack = await parts.service.context_pack(
            ContextRequest(org_id=ORG, query=QUESTION, token_budget=budget), parts.ctx
        )
        assert pack.items and pack.rendered_token_count <= budget
        assert pack.token_count <= pack.rendered_token_count
        assert all(i.speaker in ("Sam", "Maya") for i in pack.items)
        assert all(i.episode_occurred_at is not None for i in pack.items)
    small = await parts.service.context_pack(
        ContextRequest(org_id=ORG, query=QUESTION, token_budget=100), parts.ctx
    )
    assert small.omitted > 0
    when = small.items[0].episode_occurred_at
    assert when is not None and (when.month, when.hour, when.minute) == (5, 18, 30)


async def test_a_superseded_episode_says_what_replaced_it_in_the_rendering(parts: Parts) -> None:
    old = await parts.service.remember(
        RememberRequest(
            org_id=ORG,
            source_type=SourceType.CONVERSATION,
            occurred_at=datetime(2023, 1, 5, tzinfo=UTC),
            turns=[Turn(role="user", speaker="Maya", content="I live in Lisbon, by the market.")],
        ),
        parts.ctx,
    )
    new = await parts.service.remember(
        RememberRequest(
            org_id=ORG,
            source_type=SourceType.CONVERSATION,
            occurred_at=datetime(2023, 4, 5, tzinfo=UTC),
            turns=[Turn(role="user", speaker="Maya", content="We moved from Lisbon to Porto.")],
        ),
        parts.ctx,
    )
    corrections = parts.world.services.corrections
    request = CorrectionRequest(action=CorrectionAction.SUPERSEDE, replacement_id=new.source_id)
    preview = await corrections.preview(parts.ctx, old.source_id, request)
    await corrections.apply(parts.ctx, old.source_id, request, preview.preview_token)
    pack = await parts.service.context_pack(
        ContextRequest(org_id=ORG, query="Where does Maya live, Lisbon?"), parts.ctx
    )
    assert [e.source_id for e in pack.episodes] == [new.source_id, old.source_id]
    # the replacing episode is in the pack, so the older one names it by its number
    assert [e.number for e in pack.episodes] == [1, 2]
    assert "## [2] Conversation of" in pack.rendered
    assert pack.rendered.splitlines()[3].endswith("— superseded by [1]")


def test_a_question_without_its_speaker_names() -> None:
    names = ["Maya", "Sam"]
    assert unnamed_query("What sports does Maya do?", names) == "What sports does do?"
    assert unnamed_query("Where is maya's and Sam’s flat?", names) == "Where is and flat?"
    assert unnamed_query("What sports does Mayan culture have?", names) is None
    assert unnamed_query("What do I like?", names) is None
    assert unnamed_query("Maya?", names) is None
    assert unnamed_query("Maya", []) is None


def test_the_switch_and_its_parts_are_checked() -> None:
    with pytest.raises(ValueError):
        ConversationRecall(window_radius=0)
    with pytest.raises(ValueError):
        ConversationRecall(episode_weight=2.0)
    assert parse_conversation("off") == ConversationRecall.off()
    assert parse_conversation("on") == ConversationRecall()
    assert parse_conversation("windows=false,episode_weight=0.25") == ConversationRecall(
        windows=False, episode_weight=0.25
    )
    with pytest.raises(ValueError):
        parse_conversation("nonsense=1")


_TALKS = (
    ("I love hiking in the mountains on weekends.", "Which trails have you done?"),
    ("My camera is a mirrorless body with one prime lens.", "Nice, do you shoot street?"),
    ("The quarterly report is due on Friday.", "I'll send the numbers tomorrow."),
)


async def _talks(parts: Parts) -> None:
    for day, (said, reply) in enumerate(_TALKS, start=1):
        await parts.service.remember(
            RememberRequest(
                org_id=ORG,
                source_type=SourceType.CONVERSATION,
                occurred_at=datetime(2023, 6, day, 9, 0, tzinfo=UTC),
                turns=[Turn(role="user", content=said), Turn(role="assistant", content=reply)],
                wait="indexed",
            ),
            parts.ctx,
        )


async def _ranked(parts: Parts, conversation: ConversationRecall, query: str) -> list[float]:
    found = await _service(parts, conversation).search(
        SearchRequest(org_id=ORG, query=query), parts.ctx
    )
    return [round(h.score, 6) for h in found.results]


async def test_a_preference_request_fuses_whole_talks_and_other_questions_pool(
    parts: Parts,
) -> None:
    await _talks(parts)
    unpooled = ConversationRecall(episode_weight=1.0, pool_context=False, preference_talks=False)
    default = ConversationRecall()
    advice = "Can you suggest some accessories for my camera that I would enjoy?"
    assert await _ranked(parts, default, advice) == await _ranked(parts, unpooled, advice)
    assert await _ranked(parts, default, advice) != await _ranked(
        parts, ConversationRecall(preference_talks=False), advice
    )
    plain = "When is the quarterly report due?"
    assert await _ranked(parts, default, plain) == await _ranked(
        parts, ConversationRecall(preference_talks=False), plain
    )
    assert not ConversationRecall.off().preference_talks


@pytest.mark.parametrize("mode", ["hybrid", "ranked"])
async def test_a_counting_question_fuses_whole_talks_and_other_questions_pool(
    parts: Parts, mode: str
) -> None:
    from application.retrieval.pipeline import RetrievalMode

    await _talks(parts)
    unpooled = ConversationRecall(episode_weight=1.0, pool_context=False, counting_talks=False)

    async def scores(conversation: ConversationRecall, query: str) -> list[float]:
        recall = Recall(
            store=parts.store,
            index=parts.index,
            embedder=parts.embedder,
            conversation=conversation,
            retrieval_mode=RetrievalMode(mode),
        )
        service = MemoryService(
            store=parts.store,
            index=parts.index,
            embedder=parts.embedder,
            tokens=parts.service._tokens,
            clock=parts.clock,
            ids=parts.service._ids,
            audit=parts.service._audit,
            recall=recall,
            lane=EmbeddingLane(store=parts.store, index=parts.index, embedder=parts.embedder),
        )
        found = await service.search(SearchRequest(org_id=ORG, query=query), parts.ctx)
        return [round(h.score, 6) for h in found.results]

    counting = "How many times did I mention the mountains or my camera?"
    assert await scores(ConversationRecall(), counting) == await scores(unpooled, counting)
    assert await scores(ConversationRecall(), counting) != await scores(
        ConversationRecall(counting_talks=False), counting
    )
    plain = "When is the quarterly report due?"
    assert await scores(ConversationRecall(), plain) == await scores(
        ConversationRecall(counting_talks=False), plain
    )
    assert not ConversationRecall.off().counting_talks


def test_the_spread_parts_are_checked() -> None:
    with pytest.raises(ValueError):
        ConversationRecall(run_turns=0)
    with pytest.raises(ValueError):
        ConversationRecall(spread_runs=0)
    assert parse_conversation("run_turns=3,spread_runs=4") == ConversationRecall(
        run_turns=3, spread_runs=4
    )
