"""What a memory question asks for, read from its wording alone.

The shapes are general forms of questions people ask a memory, not any data
set's: counting or totalling over several episodes ("how many", "in total"),
ordering two events ("which came first", "before", "after", "or"), the last
or first of something, what the assistant said ("what did you recommend"),
and what the person likes ("what do I prefer"). Each shape changes which
evidence the ranker weighs: the speaker of a turn, or spreading the top
results over several episodes.
"""

import itertools
import re

import msgspec

from domain.query_terms import FUNCTION_WORDS
from domain.ranking.text import content_terms
from domain.words import ranker_words, stem

__all__ = ["QuestionProfile", "profile_question", "subject_phrase"]

#: words that frame a question's shape or time rather than its subject
_FRAME_WORDS = frozenset(
    """
    many much total number times count first last earliest latest recent recently order
    ago yesterday today week weeks month months year years day days previous past
    before after since currently current still ever usually remember remind tell told
    mention mentioned said say talk talked discuss discussed again
    monday tuesday wednesday thursday friday saturday sunday weekend
    previous conversation chat thinking wondering going looking back
    recommend recommended recommendation suggest suggested suggestion suggestions
    idea ideas tip tips advice
    """.split()  # noqa: SIM905 - a word list reads better as text
)

_FRAME_STEMS = frozenset(_FRAME_WORDS | {stem(w) for w in _FRAME_WORDS})

_COUNTING = re.compile(r"\b(how many|how much|in total|total|number of|how often|count)\b")
_ORDERING = re.compile(
    r"\b(which\b.*\bfirst|what\b.*\bfirst|first|before|after|order|earlier|later|"
    r"earliest|latest|most recent|last time)\b"
)
# past tense: asking what the assistant said then, not for advice now
_ASSISTANT = re.compile(
    r"\byou\b.*\b(recommended|suggested|told|said|mentioned|gave|provided|listed|"
    r"explained|shared|wrote|described|named)\b|\bdid you\b|"
    r"\byour\b.*\b(advice|recommendation|suggestion|answer|response|idea)s?\b"
)
_PREFERENCE = re.compile(
    r"\b(prefer|preference|favou?rite|like|love|enjoy|into|suggest|recommend|any tips|"
    r"ideas? for|should i|can you)\b"
)
#: "what sports does ...", "which countries has ...": a plural subject asks for a list, and a
#: list is often told piece by piece, in several talks
_LIST_START = re.compile(r"^\s*(?:what|which)\s+((?:[a-z']+\s+){0,3})")
_LIST_SKIP = frozenset({"new", "other", "different", "kind", "kinds", "sort", "sorts", "of"})
_VERBS = frozenset(
    [
        "is", "are", "was", "were", "do", "does", "did", "has", "have", "had",
        "can", "could", "will", "would", "should", "may", "might",
    ]
)


def _plural(word: str) -> bool:
    return len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is", "'s"))


def _listing(lowered: str) -> bool:
    """A plural subject right after "what"/"which", maybe behind one describing word."""
    match = _LIST_START.search(lowered)
    if match is None:
        return False
    words = [w for w in match[1].split() if w not in _LIST_SKIP][:2]
    if not words or words[0] in _VERBS:
        return False
    second = len(words) > 1 and words[1] not in _VERBS and _plural(words[1])
    return _plural(words[0]) or second


_PERSONAL = re.compile(r"\b(i|my|me|mine|i'm|i've|i'd|myself)\b")
_ALTERNATIVES = re.compile(r"\s+(?:or|before|after)\s+")


class QuestionProfile(msgspec.Struct, frozen=True, kw_only=True):
    #: stemmed subject words, in question order
    terms: list[str]
    #: consecutive subject words, for phrase adjacency
    bigrams: list[tuple[str, str]]
    #: the question's separate subjects (e.g. the two events of "X or Y first?")
    parts: list[list[str]]
    counting: bool
    ordering: bool
    asks_assistant: bool
    preference: bool
    personal: bool
    #: asks for several things of one kind ("what pets does ... have")
    listing: bool = False

    @property
    def multi_episode(self) -> bool:
        """Answers that usually need evidence from more than one episode."""
        return self.counting or self.ordering


def profile_question(question: str) -> QuestionProfile:
    lowered = question.lower()
    terms = [t for t in content_terms(question) if t not in _FRAME_STEMS]
    if not terms:
        terms = content_terms(question)
    bigrams = list(itertools.pairwise(terms))
    parts: list[list[str]] = []
    pieces = _ALTERNATIVES.split(lowered.rstrip("?. "))
    if len(pieces) > 1:
        pieces[0] = pieces[0].rsplit(",", 1)[-1]  # "which came first, X or Y"
        for piece in pieces:
            words = [t for t in content_terms(piece) if t not in _FRAME_STEMS and t in terms]
            if words and words != terms:
                parts.append(words)
    asks_assistant = bool(_ASSISTANT.search(lowered))
    return QuestionProfile(
        terms=terms,
        bigrams=bigrams,
        parts=parts if len(parts) > 1 else [],
        counting=bool(_COUNTING.search(lowered)),
        ordering=bool(_ORDERING.search(lowered)),
        asks_assistant=asks_assistant,
        preference=bool(_PREFERENCE.search(lowered)) and not asks_assistant,
        personal=bool(_PERSONAL.search(lowered)),
        listing=_listing(lowered),
    )


def subject_phrase(question: str) -> str:
    """The question's subject words as written, without its frame ("how many ... did I")."""
    words = []
    for word in ranker_words(question):
        base = word.split("'", 1)[0]
        if base in FUNCTION_WORDS or len(base) < 2 or stem(base) in _FRAME_STEMS:
            continue
        words.append(base)
    return " ".join(dict.fromkeys(words))
