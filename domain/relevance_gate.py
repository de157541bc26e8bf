"""Is anything in memory about the question? The gate in front of search results and packs.

A search always has a first, second and third candidate, even for a
question nothing in memory is about; ranks alone cannot tell. An item-level
floor (drop each candidate that shares no word and sits far in meaning)
cost recall: in everyday conversation the answer to "What pets does Nadia
have?" is "Walked the dog for two hours", which shares no word with it and
sits at a similarity that unrelated pairs also reach.

So the gate judges the question, not each item: results stand when at least
one candidate is evidence that memory holds something about the question,
either

- sharing the question's words: it holds at least two of the question's
  meaningful words (all of them when the question has only one);
- sharing one of them and near in meaning: it holds one and its vector
  similarity reaches the embedder's relatedness floor (``Floors.near``);
- very near in meaning alone: its similarity reaches ``Floors.alone``.

Why meaning alone needs the higher floor: over a few hundred chatty turns
some turn lands near the relatedness floor for almost any text, nonsense
included ("xylophone quantum banana" reaches 0.34 against a chat between
friends with the offline MiniLM), while a real question about a memory
almost always shares a word with it (a name, a thing, a place). One shared
word is no evidence on its own either ("day", "week" are in every diary),
so it counts only on a candidate that is also near in meaning. The floors
are measured per model (``application.retrieval.relevance``).

An embedder without measured floors is never gated: without a calibration,
similarity values say nothing about relatedness. Nor is a candidate list
whose words were not counted (the single-signal benchmark modes).
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
