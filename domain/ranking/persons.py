"""Whom a turn speaks of: itself ("I", "my"), the one it talks to ("you"), or others.

A fact about a person is most often told by that person in the first person
("I work in a surgeon clinic"); a question's words echoed back ("how long did
you date him?") speak of someone else. The learned ranker weighs these marks
(docs/decisions/learned-ranker.md); English pronouns only, as the rest of the
ranker's word rules.
"""

from functools import lru_cache

import msgspec

from domain.ranking.text import distinct_words

__all__ = ["Persons", "persons_of"]

_FIRST = frozenset({"i", "im", "ive", "me", "my", "mine", "myself", "we", "our", "ours", "us"})
_SECOND = frozenset({"you", "youre", "your", "yours", "yourself", "u", "ur"})
_THIRD = frozenset({"he", "she", "him", "her", "his", "hers", "they", "them", "their"})


class Persons(msgspec.Struct, frozen=True):
    first: bool
    second: bool
    third: bool


@lru_cache(maxsize=4096)
def persons_of(text: str) -> Persons:
    """Which grammatical persons ``text`` uses; a contraction counts by its first part
    ("i'm" is "i", "you're" is "you"), written with either apostrophe."""
    words = {w.split("'", 1)[0] for w in distinct_words(text)}
    return Persons(
        first=not words.isdisjoint(_FIRST),
        second=not words.isdisjoint(_SECOND),
        third=not words.isdisjoint(_THIRD),
    )
