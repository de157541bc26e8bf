"""Whether a turn speaks of its speaker: "I", "my", "we".

A fact about a person is most often told by that person in the first person
("I work in a surgeon clinic"); a question's words echoed back ("how long did
you date him?") speak of someone else. The learned ranker weighs this mark
(docs/decisions/learned-ranker.md); English pronouns only, as the rest of the
ranker's word rules.
"""

import re

__all__ = ["in_first_person"]

#: a first-person word as ``domain.ranking.text`` splits words (ASCII letters and digits;
#: an apostrophe's tail belongs to the word before it, so "i'm" is "i"), found by one scan
#: rather than splitting the text: most candidates are never split by the ranker otherwise
_FIRST = re.compile(
    r"(?<![a-z0-9])(?<![a-z0-9]')(?:i|im|ive|me|my|mine|myself|we|our|ours|us)(?![a-z0-9])"
)


def in_first_person(text: str) -> bool:
    """Whether ``text`` says "I", "me", "my", "we" or the like; a contraction counts by
    its first part ("i'm" is "i"), written with either apostrophe."""
    return _FIRST.search(text.lower()) is not None
