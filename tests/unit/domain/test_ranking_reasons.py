"""Each hand-set ranker rule says why it lifted a candidate, and only when it did."""

from datetime import UTC, date, datetime

from domain.ranking.dates import date_window
from domain.ranking.question import profile_question
from domain.ranking.ranker import Candidate, RankWeights, rank_candidates

WEDNESDAY = datetime(2031, 7, 16, 18, 0, tzinfo=UTC)


def _reasons(question: str, texts: dict[str, str], **kw: object) -> dict[str, list[str]]:
    candidates = [
        Candidate(item_id=i, episode_id=f"e-{i}", text=t, fused=0.03, **kw)  # type: ignore[arg-type]
        for i, t in texts.items()
    ]
    ranked = rank_candidates(profile_question(question), candidates, weights=RankWeights(window=0))
    return {r.item_id: r.reasons for r in ranked}


def test_words_side_by_side_are_named_only_when_adjacent() -> None:
    reasons = _reasons(
        "Where is the camping lantern?",
        {"near": "the camping lantern is in the loft", "apart": "lantern, then camping gear"},
    )
    assert "has the question's words side by side" in reasons["near"]
    assert "has the question's words side by side" not in reasons["apart"]


def test_a_date_inside_the_window_is_named() -> None:
    question = "What did I cook last Sunday?"
    candidates = [
        Candidate(
            item_id="sunday",
            episode_id="e1",
            text="I cooked a stew",
            fused=0.03,
            episode_date=date(2031, 7, 13),
        ),
        Candidate(
            item_id="old",
            episode_id="e2",
            text="I cooked a stew",
            fused=0.03,
            episode_date=date(2031, 5, 4),
        ),
    ]
    ranked = rank_candidates(
        profile_question(question),
        candidates,
        date_window(question, WEDNESDAY),
        RankWeights(window=0),
    )
    reasons = {r.item_id: r.reasons for r in ranked}
    assert "happened when the question says" in reasons["sunday"]
    assert "happened when the question says" not in reasons["old"]
    assert ranked[0].item_id == "sunday" and ranked[0].score > ranked[1].score


def test_a_whole_compared_event_is_named() -> None:
    reasons = _reasons(
        "Which did I repair first, the fence or the mailbox?",
        {"fence": "the fence was fixed", "noise": "repair work is tiring"},
    )
    assert "matches one of the events the question compares" in reasons["fence"]
    assert "matches one of the events the question compares" not in reasons["noise"]
