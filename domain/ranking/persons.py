"""Whether a turn speaks of its speaker: "I", "my", "we".

A fact about a person is most often told by that person in the first person
("I work in a surgeon clinic"); a question's words echoed back ("how long did
you date him?") speak of someone else. The learned ranker weighs this mark
(docs/decisions/learned-ranker.md); English pronouns only, as the rest of the
ranker's word rules.
"""

from functools import lru_cache

from domain.ranking.text import distinct_words

__all__ = ["in_first_person"]

_FIRST = frozenset({"i", "im", "ive", "me", "my", "mine", "myself", "we", "our", "ours", "us"})


@lru_cache(maxsize=4096)
def in_first_person(text: str) -> bool:
    """Whether ``text`` says "I", "me", "my", "we" or the like; a contraction counts by
    its first part ("i'm" is "i"), written with either apostrophe."""
    return any(w.split("'", 1)[0] in _FIRST for w in distinct_words(text))
