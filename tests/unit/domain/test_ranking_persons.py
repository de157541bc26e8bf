"""Whether a turn speaks in the first person, as the learned ranker reads it."""

import pytest

from domain.ranking.candidate import Candidate
from domain.ranking.learned import candidate_features
from domain.ranking.persons import in_first_person
from domain.ranking.question import profile_question


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I work in a surgeon clinic!", True),
        ("i’m still a newbie", True),
        ("Off to see my mum", True),
        ("we went, us two", True),
        ("How long did you date him?", False),
        ("Thats just smart business", False),
        # words that only start like a pronoun are no pronoun
        ("Item: mines, usual, myth, wee, our-ish", True),
        ("Item: mines, usual, myth, wee", False),
    ],
)
def test_a_turn_in_the_first_person_is_told_apart(text: str, expected: bool) -> None:
    assert in_first_person(text) is expected


def _turn(n: int, speaker: str, text: str) -> Candidate:
    return Candidate(
        item_id=f"e:{n}", episode_id="e", text=text, fused=0.5, speaker=speaker, turn_index=n
    )


def test_first_person_features_follow_the_turns_own_evidence() -> None:
    question = profile_question("Where does Vanessa work?")
    turns = [
        _turn(0, "Nebraas", "What do you do for work?"),
        _turn(1, "Vanessa", "I work in a surgeon clinic, always busy"),
        _turn(2, "Vanessa", "Do I ever stop?"),
        _turn(3, "Nebraas", "That clinic sounds busy"),
    ]
    rows = candidate_features(question, turns, None, frozenset({"Vanessa"}), 30)
    answer, asking, other = rows[1], rows[2], rows[3]
    assert answer["first_person"] == 1.0
    assert answer["first_person_named"] == answer["named_speaker"] == 1.0
    assert answer["first_person_statement"] == 1.0
    assert answer["first_person_coverage"] == answer["coverage"] > 0
    assert answer["first_person_reply"] == answer["previous_coverage"] > 0
    # a question in the first person is no statement
    assert asking["first_person"] == 1.0 and asking["first_person_statement"] == 0.0
    # no first person: none of its features
    assert not any(f.startswith("first_person") for f in other)
