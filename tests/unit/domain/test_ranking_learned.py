"""The learned ranker: its features, who is who, numeric dates, and its reasons."""

from datetime import date, datetime

import msgspec
import pytest

from domain.ranking.aliases import speaker_aliases
from domain.ranking.candidate import Candidate
from domain.ranking.dates import date_window
from domain.ranking.learned import FEATURES, RankModel, candidate_features, is_talk
from domain.ranking.learned_weights import LEARNED
from domain.ranking.marks import TextMarks, text_marks
from domain.ranking.question import profile_question
from domain.ranking.ranker import RankWeights, features_of, rank_candidates


def _turn(n: int, speaker: str, text: str, episode: str = "e1", fused: float = 0.5) -> Candidate:
    return Candidate(
        item_id=f"{episode}:{n}",
        episode_id=episode,
        text=text,
        fused=fused,
        speaker=speaker,
        turn_index=n,
        ranks={"lexical": n},
    )


_CHAT = [
    _turn(0, "Emi", "Hey elise! How are you?"),
    _turn(1, "elise", "Good! How are you doing today Kate?"),
    _turn(2, "Emi", "Tired, I painted all morning."),
    _turn(3, "elise", "Thanks Kate, see you tomorrow!"),
    _turn(4, "elise", "I went hiking with my brother."),
]


def test_the_other_speaker_is_called_by_the_name_they_greet_her_with() -> None:
    assert speaker_aliases(_CHAT) == {"kat": "Emi"}


def test_one_greeting_or_a_sentence_opening_adverb_names_no_one() -> None:
    once = [_turn(0, "Emi", "Hi there"), _turn(1, "elise", "Good morning Kate!")]
    adverbs = [
        _turn(0, "Emi", "Absolutely, Pasta is great."),
        _turn(1, "elise", "Yes Absolutely, see you, Pasta!"),
        _turn(2, "elise", "Yes Absolutely!"),
    ]
    assert speaker_aliases(once) == {}
    assert speaker_aliases(adverbs) == {}


def test_a_speaker_naming_herself_is_known_by_that_name() -> None:
    talk = [
        _turn(0, "user1", "Hi, this is Kate from the book club"),
        _turn(1, "user2", "Hello!"),
        _turn(2, "user1", "My name is Kate, by the way"),
    ]
    assert speaker_aliases(talk) == {"kat": "user1"}


def test_a_question_naming_someone_by_alias_prefers_her_turns() -> None:
    profile = profile_question("What did Kate do all morning?")
    values = features_of(profile, _CHAT, None, RankWeights())
    assert values[2]["named_speaker"] == 1.0 and values[4]["named_speaker"] == 0.0
    off = features_of(profile, _CHAT, None, RankWeights(aliases=False))
    assert off[2]["named_speaker"] == 0.0


def test_every_feature_is_a_number_between_zero_and_one() -> None:
    profile = profile_question("Did Kate paint in the morning or go hiking first?")
    window = date_window("on 02.01.2024", datetime(2024, 1, 9))
    values = candidate_features(profile, _CHAT, window, frozenset({"Emi"}), 7)
    assert len(values) == len(_CHAT)
    for row in values:
        assert set(row) <= set(FEATURES)
        assert all(0.0 <= v <= 1.0 for v in row.values())
    assert values[3]["previous_coverage"] == values[2]["coverage"] > 0
    assert values[0]["episode_first"] == 1.0 and values[4]["episode_first"] == 0.2


def test_marks_an_index_kept_are_read_as_the_text_would_give_them() -> None:
    profile = profile_question("What did Kate paint?")
    worked_out = candidate_features(profile, _CHAT, None, frozenset(), 7)
    kept = [msgspec.structs.replace(c, marks=text_marks(c.text)) for c in _CHAT]
    assert candidate_features(profile, kept, None, frozenset(), 7) == worked_out
    assert [text_marks(c.text) for c in _CHAT][2:5:2] == [
        TextMarks(first_person=True, short=True),  # "Tired, I painted all morning."
        TextMarks(first_person=True, short=False),
    ]
    # the kept marks are what the ranker reads, not the text again
    wrong = [
        msgspec.structs.replace(c, marks=TextMarks(first_person=True, short=True)) for c in _CHAT
    ]
    read = candidate_features(profile, wrong, None, frozenset(), 7)
    assert all(v["first_person"] == 1.0 and v["short_turn"] == 1.0 for v in read)
    assert "first_person" not in worked_out[0] and worked_out[0]["short_turn"] == 1.0


def test_a_model_scores_with_its_weights_and_names_no_unknown_feature() -> None:
    model = RankModel(weights={"coverage": 2.0, "date": -1.0}, bias=0.5)
    assert model.score({"coverage": 0.5, "date": 1.0, "asks": 1.0}) == 0.5
    with pytest.raises(ValueError, match="unknown features"):
        RankModel(weights={"colour": 1.0})


def test_the_learned_ranker_puts_the_answer_first_and_says_why_in_the_rules_words() -> None:
    profile = profile_question("What did Kate paint all morning?")
    ranked = rank_candidates(profile, _CHAT, None, RankWeights(), LEARNED)
    assert ranked[0].item_id == "e1:2"
    assert "said by Emi, whom the question names" in ranked[0].reasons


def test_shipped_weights_cover_every_feature_with_a_finite_number() -> None:
    assert set(LEARNED.weights) <= set(FEATURES)
    assert all(abs(w) < 100 for w in LEARNED.weights.values())


@pytest.mark.parametrize(
    ("question", "day", "confidence"),
    [
        ("What book did he start on 01.02.2024?", date(2024, 2, 1), 0.9),  # dots: day first
        ("What happened on 13/1/2024?", date(2024, 1, 13), 0.9),  # only one reading
        ("What happened on 1/13/24?", date(2024, 1, 13), 0.9),
        ("What happened on 2/1/2024?", date(2024, 2, 1), 0.5),  # both past: month first
        ("What happened on 1/2/2024?", date(2024, 1, 2), 0.5),
        ("What happened on 05-03-2024?", date(2024, 3, 5), 0.9),  # May is after asking
    ],
)
def test_numeric_dates_are_read_with_their_ambiguity(
    question: str, day: date, confidence: float
) -> None:
    window = date_window(question, datetime(2024, 4, 1))
    assert window is not None
    assert window.start <= day <= window.end and window.confidence == confidence


def test_a_version_number_or_an_impossible_date_is_no_date() -> None:
    asked = datetime(2024, 4, 1)
    assert date_window("Is 1.5.2 the release?", asked) is None
    assert date_window("What happened on 31.02.2024?", asked) is None


def test_the_learned_weights_rank_conversations_and_the_rules_rank_notes() -> None:
    note = Candidate(item_id="n1", episode_id="n1", text="The ledger keeps entries.", fused=0.5)
    assert is_talk(_CHAT) and not is_talk([note, note, *_CHAT[:1]])
    assert is_talk([*_CHAT[:2], note, note]) and not is_talk([])
