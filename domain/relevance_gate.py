"""Is anything in memory about the question? The gate in front of a context pack's budget.

A context pack fills its token budget with the best candidates it has. When
nothing in memory is about the question, those candidates are simply the
least unrelated items, and the pack used to hand a whole budget of them to
the reader (issue 14, finding 5). An item-level floor (drop each candidate
that shares no word and sits far in meaning) cost recall: in everyday
conversation the answer to "What pets does Nadia have?" is "Walked the dog
for two hours", which shares no word with it and sits at a similarity that
unrelated pairs also reach (benchmarks/RESULTS.md, "relevance floor").

So the gate judges the question, not each item: the pack keeps its budget
when at least one candidate is evidence that memory holds something about
the question, either

- near in meaning: its vector similarity to the question reaches the
  embedder's relatedness floor (a calibration measured per model; see
  ``application.retrieval.relevance``), or
- sharing the question's words: it holds at least two of the question's
  meaningful words (all of them when the question has only one), so one
  common word ("run", "week") is not enough on its own.

Otherwise the pack keeps only its first ``WEAK_KEEP`` items, each saying why.
An embedder without a measured floor is never gated: without a calibration,
similarity values say nothing about relatedness. Nor is a candidate list
that carries no evidence at all (the single-signal benchmark modes).
"""

from collections.abc import Sequence

import msgspec

__all__ = ["WEAK_KEEP", "WEAK_MATCH", "Evidence", "about_the_question", "words_needed"]

#: items a pack keeps for a question nothing in memory is about
WEAK_KEEP = 3
#: the reason each of those items carries
WEAK_MATCH = "weak match: nothing in memory shares the question's words or is near it in meaning"


class Evidence(msgspec.Struct, frozen=True, kw_only=True):
    """What one candidate says about the question."""

    #: cosine similarity to the question, when the vector search found it
    similarity: float | None = None
    #: distinct meaningful question words the candidate holds; None: not counted
    words: int | None = None

    def __post_init__(self) -> None:
        if self.words is not None and self.words < 0:
            raise ValueError("words cannot be negative")


def words_needed(question_words: int) -> int:
    """Shared words that show a candidate is about the question: two, or all of fewer."""
    return max(1, min(2, question_words))


def about_the_question(
    evidence: Sequence[Evidence], question_words: int, floor: float | None
) -> bool:
    """True when some candidate shows that memory holds something about the question."""
    if floor is None:
        return True
    needed = words_needed(question_words)
    for item in evidence:
        if item.similarity is None and item.words is None:
            return True  # nothing was measured about this candidate: no ground to gate on
        if question_words and item.words is not None and item.words >= needed:
            return True
        if item.similarity is not None and item.similarity >= floor:
            return True
    return False
