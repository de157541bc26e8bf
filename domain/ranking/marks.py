"""What the ranker reads of a turn's text alone, whatever the question.

Two marks: the turn speaks in the first person ("I", "my", "we"), and it is
short (fewer than ``SHORT_TURN`` words). They depend on the text only, so an
index works them out once when it takes a turn in and hands them to every
search that ranks it, rather than each search reading each candidate's text
for them again; a candidate without them has them worked out here.
"""

from functools import lru_cache

import msgspec

from domain.ranking.persons import in_first_person
from domain.ranking.text import fewer_words_than

__all__ = ["SHORT_TURN", "TextMarks", "text_marks"]

#: a turn this short (in words) seldom means anything without the turn before it
SHORT_TURN = 6


class TextMarks(msgspec.Struct, frozen=True, gc=False):
    first_person: bool
    short: bool


#: the four values, shared: an index holds one reference a row, not one object
_VALUES = {(f, s): TextMarks(f, s) for f in (False, True) for s in (False, True)}


@lru_cache(maxsize=4096)
def text_marks(text: str) -> TextMarks:
    return _VALUES[in_first_person(text), fewer_words_than(text, SHORT_TURN)]
