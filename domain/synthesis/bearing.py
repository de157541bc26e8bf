"""Does a source bear on the question? The relevance gate's test, applied to one text.

A synthesis retrieves each section's evidence with the question plus the
section's cue words ("decided because", "fix bug"), so a section pack also
holds the mail that merely says "decided" and the diff that says "fix".
Such a source must neither give the draft a sentence nor support a claim.
The test is the relevance gate's (``domain.relevance_gate``) on the one
text: it holds two of the question's meaningful words (all of a one-word
question), or one of them and sits near the question in meaning, or sits
very near in meaning alone. Without an embedder's measured floors the test
is by words alone (one shared word): an uncalibrated similarity says nothing.

What a draft leaves out of a section, and why, is said per source
(``LeftOut`` reasons, in words a person reads).
"""

import math
from enum import StrEnum

from domain.ranking.text import term_hits
from domain.relevance_gate import Evidence, Floors, about_the_question

__all__ = ["WORDS_ONLY", "LeftOutReason", "bears_on"]

#: floors for an embedder nobody measured: one shared word, never meaning alone
WORDS_ONLY = Floors(near=-1.0, alone=math.inf)


class LeftOutReason(StrEnum):
    #: the source does not bear on the question
    OFF_TOPIC = "off_topic"
    #: all it holds for the section is a code diff
    CODE_DIFF = "code_diff"
    #: on the question, but no sentence of it speaks to this section
    NOTHING_FOR_SECTION = "nothing_for_section"
    #: its sentences were quoted already (an earlier section, an overlapping chunk)
    ALREADY_QUOTED = "already_quoted"
    #: the section had its five sentences before this source's turn
    SECTION_FULL = "section_full"

    @property
    def words(self) -> str:
        return _WORDS[self]


_WORDS = {
    LeftOutReason.OFF_TOPIC: "does not bear on the question: too few of its words, far in meaning",
    LeftOutReason.CODE_DIFF: "a code diff, not statements a document can quote",
    LeftOutReason.NOTHING_FOR_SECTION: "no sentence of it speaks to this section",
    LeftOutReason.ALREADY_QUOTED: "its sentences are quoted already",
    LeftOutReason.SECTION_FULL: "the section was full",
}


def bears_on(
    terms: frozenset[str], text: str, similarity: float | None, floors: Floors | None
) -> bool:
    """Whether ``text`` bears on the question of ``terms``; ``similarity``: their cosine."""
    held = len(term_hits(text, terms)) if terms else 0
    return about_the_question(
        [Evidence(similarity=similarity, words=held)], len(terms), floors or WORDS_ONLY
    )
