"""Is anything in memory about the question? The gate in front of search results and packs.

Why it is built this way: docs/decisions/internals.md#domainrelevance_gatepy.
"""

from collections.abc import Sequence

import msgspec

__all__ = [
    "NOTHING_RELEVANT",
    "NOTHING_RELEVANT_TEXT",
    "WEAK_KEEP",
    "WEAK_MATCH",
    "Evidence",
    "Floors",
    "about_the_question",
    "nothing_relevant_words",
    "weak_pack_words",
    "words_needed",
]

#: items a pack keeps for a question nothing in memory is about
WEAK_KEEP = 3
#: why results were held back: a stable code, and the same in words
NOTHING_RELEVANT = "nothing_relevant"
NOTHING_RELEVANT_TEXT = "nothing in memory shares the question's words or is near it in meaning"
#: the reason each item a pack keeps for such a question carries
WEAK_MATCH = f"weak match: {NOTHING_RELEVANT_TEXT}"


class Evidence(msgspec.Struct, frozen=True, kw_only=True):
    """What one candidate says about the question."""

    #: cosine similarity to the question, when the vector search found it
    similarity: float | None = None
    #: distinct meaningful question words the candidate holds; None: not counted
    words: int | None = None

    def __post_init__(self) -> None:
        if self.words is not None and self.words < 0:
            raise ValueError("words cannot be negative")


class Floors(msgspec.Struct, frozen=True, kw_only=True):
    """One embedder's similarity floors (cosine)."""

    #: near in meaning: evidence together with one shared question word
    near: float
    #: near enough in meaning to be evidence with no shared word
    alone: float

    def __post_init__(self) -> None:
        if self.alone < self.near:
            raise ValueError("the floor for meaning alone cannot be under the near floor")


def words_needed(question_words: int) -> int:
    """Shared words that show a candidate is about the question: two, or all of fewer."""
    return max(1, min(2, question_words))


def about_the_question(
    evidence: Sequence[Evidence],
    question_words: int,
    floors: Floors | None,
    *,
    meaning_pending: bool = False,
) -> bool:
    """True when some candidate shows that memory holds something about the question.

    ``meaning_pending``: some of memory waits for its vectors (just written, or an
    import's backlog), so a candidate the vector search did not find may simply not be
    searchable by meaning yet; one shared word is then evidence on its own.
    """
    if floors is None:
        return True
    needed = words_needed(question_words)
    for item in evidence:
        if item.words is None:
            return True  # its words were not counted (a single-signal mode): no ground
        words = item.words if question_words else 0
        if words >= needed:
            return True
        if item.similarity is None:
            if words and meaning_pending:
                return True
            continue
        if item.similarity >= floors.alone or (words and item.similarity >= floors.near):
            return True
    return False


def _matches(n: int) -> str:
    return f"{n} weak match{'' if n == 1 else 'es'}"


def nothing_relevant_words(held_back: int) -> str:
    """What a person is told when a search held every candidate back."""
    return f"Nothing relevant: {NOTHING_RELEVANT_TEXT} ({_matches(held_back)} held back)."


def weak_pack_words(kept: int, held_back: int) -> str:
    """What a person is told about a pack the gate closed."""
    return (
        f"Nothing relevant: {NOTHING_RELEVANT_TEXT}; "
        f"the {kept} item(s) kept are weak matches ({held_back} more held back)."
    )
