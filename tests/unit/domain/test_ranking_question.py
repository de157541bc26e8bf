"""Question shapes the ranker reads: listing a kind of thing, and the events a question compares."""

import pytest

from domain.ranking.question import profile_question


@pytest.mark.parametrize(
    ("question", "listing"),
    [
        ("What pets does Maya have?", True),
        ("Which new books did I buy?", True),  # a describing word is skipped
        ("What kinds of plays have I seen?", True),
        ("What board games did we play?", True),  # the plural may be the second word
        ("What time is the meeting?", False),
        ("What was the name of the cafe?", False),  # a verb first: not a kind of thing
        ("What class did I take?", False),  # "ss" is no plural
        ("What bus did I take?", False),  # nor "us"
        ("What cats do you have?", True),
        ("What cat does Maya's have?", False),
        ("What cat has kittens?", False),  # a verb as the second word ends the subject
        ("What cat is adorable?", False),
        ("What gas was used?", False),  # three letters are too short to read as a plural
        ("What was it?", False),
        ("What of it?", False),
        ("Where are my keys?", False),
        ("What ANALYSIS did you run?", False),  # "is" ends no plural
        ("What cat's toys do I have?", True),  # "'s" is no plural; the next word is
        ("What cat's name?", False),
    ],
)
def test_a_listing_question_asks_for_several_things_of_one_kind(
    question: str, listing: bool
) -> None:
    assert profile_question(question).listing is listing


def test_the_events_a_question_compares_are_its_parts() -> None:
    profile = profile_question("Which came first, the kayak trip or the pottery class?")
    assert profile.parts == [["kayak", "trip"], ["pottery", "class"]]
    before = profile_question("Did I adopt the cat before the move to Lisbon?")
    assert len(before.parts) == 2
    assert profile_question("What pets does Maya have?").parts == []
