"""The learned ranker's reasons: a strong contribution is said as the hand-set rules say it,
the strongest first, and a contribution too small or without words is not said."""

import pytest

from domain.ranking.learned import RankModel, score_with_model
from domain.ranking.reasons import RankCode, RankReason


def _said(feature: str, value: float, speaker: str | None = "Kate") -> list[RankReason]:
    return score_with_model(RankModel(weights={feature: 1.0}), {feature: value}, speaker)[1]


@pytest.mark.parametrize(
    ("feature", "code"),
    [
        ("phrase", RankCode.PHRASE),
        ("date", RankCode.DATE),
        ("reply", RankCode.REPLY),
        ("previous_coverage", RankCode.REPLY),
        ("first_person_reply", RankCode.REPLY),
        ("first_person", RankCode.FIRST_PERSON),
        ("first_person_statement", RankCode.FIRST_PERSON),
        ("first_person_coverage", RankCode.FIRST_PERSON),
        ("first_person_named", RankCode.FIRST_PERSON),
    ],
)
def test_a_strong_feature_is_said_by_its_rule(feature: str, code: RankCode) -> None:
    assert _said(feature, 0.5) == [RankReason(code=code)]


def test_coverage_is_said_with_its_share_from_half_the_question() -> None:
    assert _said("coverage", 0.5) == [RankReason(code=RankCode.COVERAGE, share=0.5)]
    assert _said("coverage", 0.49) == []


def test_a_named_speaker_is_said_by_name_and_only_with_one() -> None:
    for feature in ("named_speaker", "named_and_matching"):
        assert _said(feature, 1.0) == [RankReason(code=RankCode.SPEAKER_NAMED, who="Kate")]
        assert _said(feature, 1.0, speaker=None) == []


def test_a_compared_event_is_said_only_when_the_turn_holds_all_of_it() -> None:
    assert _said("alternatives", 0.99) == [RankReason(code=RankCode.COMPARED_EVENT)]
    assert _said("alternatives", 0.98) == []


@pytest.mark.parametrize("feature", ["fused", "rank_lexical", "segment", "short_turn", "asks"])
def test_a_feature_without_words_is_not_said(feature: str) -> None:
    assert _said(feature, 1.0) == []


def test_a_contribution_below_the_floor_is_not_said_and_the_strongest_comes_first() -> None:
    model = RankModel(weights={"date": 0.04, "phrase": 1.0, "reply": 2.0})
    score, reasons = score_with_model(model, {"date": 1.0, "phrase": 0.5, "reply": 0.5}, None)
    assert score == pytest.approx(0.04 + 0.5 + 1.0)
    assert reasons == [RankReason(code=RankCode.REPLY), RankReason(code=RankCode.PHRASE)]
    # a contribution exactly at the floor is said
    assert score_with_model(RankModel(weights={"date": 0.05}), {"date": 1.0})[1] == [
        RankReason(code=RankCode.DATE)
    ]


def test_one_reason_said_by_two_features_is_said_once() -> None:
    model = RankModel(weights={"reply": 1.0, "previous_coverage": 1.0}, bias=0.25)
    score, reasons = score_with_model(model, {"reply": 0.5, "previous_coverage": 0.75})
    assert score == pytest.approx(1.5)
    assert reasons == [RankReason(code=RankCode.REPLY)]
