"""Whom a turn speaks of, as the learned ranker reads it."""

import pytest

from domain.ranking.candidate import Candidate
from domain.ranking.learned import candidate_features
from domain.ranking.persons import Persons, persons_of
from domain.ranking.question import profile_question


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I work in a surgeon clinic!", Persons(first=True, second=False, third=False)),
        ("i’m still a newbie", Persons(first=True, second=False, third=False)),
        ("I'm off to see my mum", Persons(first=True, second=False, third=False)),
        ("How long did you date him?", Persons(first=False, second=True, third=True)),
        ("you're right, they're late", Persons(first=False, second=True, third=True)),
        ("Thats just smart business", Persons(first=False, second=False, third=False)),
        # words that only start like a pronoun are no pronoun
        ("Item: theirselves, hey, mines, usual", Persons(first=False, second=False, third=False)),
        ("Ivory herbs, youth, mystery", Persons(first=False, second=False, third=False)),
    ],
)
def test_a_turn_is_read_for_the_persons_it_speaks_of(text: str, expected: Persons) -> None:
    assert persons_of(text) == expected


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
    assert rows[0]["second_person"] == 1.0 and rows[0]["third_person"] == 0.0
