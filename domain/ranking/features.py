"""Query-aware evidence in one candidate text, each a number in [0, 1].

- coverage: how much of the question's meaning the text holds, words weighted
  by rarity among the candidates (a rare word like "aquarium" outweighs "go");
- phrase adjacency: question words that stand next to each other in the
  question also stand (nearly) together in the text;
- best segment: the densest short stretch of the text, so one precise
  sentence in a long answer is not diluted by the rest.
"""

import math
from collections.abc import Iterable, Mapping, Sequence

__all__ = [
    "best_segment",
    "coverage",
    "idf_weights",
    "phrase_adjacency",
    "term_positions",
    "weight_of",
]

#: tokens in a "segment": about two sentences
SEGMENT_TOKENS = 30
#: positions apart that still count as adjacent ("booked a table" ~ "book table")
ADJACENT = 3


def idf_weights(terms: Sequence[str], documents: Iterable[frozenset[str]]) -> dict[str, float]:
    """Rarity of each question term among the candidate texts (smoothed, always > 0)."""
    docs = list(documents)
    n = len(docs)
    weights: dict[str, float] = {}
    for term in terms:
        df = sum(1 for d in docs if term in d)
        weights[term] = math.log(1.0 + (n + 1) / (df + 0.5))
    return weights


def weight_of(terms: Sequence[str], idf: Mapping[str, float]) -> float:
    """The question's whole weight: what ``coverage`` and ``best_segment`` divide by (the
    ranker computes it once a question rather than once a candidate)."""
    return sum(idf.get(t, 0.0) for t in terms)


def coverage(
    terms: Sequence[str],
    present: frozenset[str] | set[str] | Mapping[str, object],
    idf: Mapping[str, float],
    total: float | None = None,
) -> float:
    """The weighted share of ``terms`` in ``present``; ``total``: ``weight_of(terms, idf)``."""
    total = weight_of(terms, idf) if total is None else total
    if total <= 0:
        return 0.0
    return sum(idf.get(t, 0.0) for t in terms if t in present) / total


def term_positions(terms: Iterable[str], tokens: Sequence[str]) -> dict[str, list[int]]:
    """Where each wanted term occurs (one pass, shared by the phrase and segment rules)."""
    wanted = set(terms)
    positions: dict[str, list[int]] = {}
    for i, tok in enumerate(tokens):
        if tok in wanted:
            positions.setdefault(tok, []).append(i)
    return positions


def phrase_adjacency(
    bigrams: Sequence[tuple[str, str]], positions: Mapping[str, Sequence[int]]
) -> float:
    """Share of the question's word pairs found within ``ADJACENT`` positions, in order."""
    if not bigrams:
        return 0.0
    found = 0
    for first, second in bigrams:
        a, b = positions.get(first), positions.get(second)
        if a and b and any(0 < j - i <= ADJACENT for i in a for j in b):
            found += 1
    return found / len(bigrams)


def best_segment(
    terms: Sequence[str],
    positions: Mapping[str, Sequence[int]],
    idf: Mapping[str, float],
    total: float | None = None,
) -> float:
    """The highest coverage of any ``SEGMENT_TOKENS``-long window of the text (a window
    starts at each hit); ``terms`` distinct (as a question profile's are), ``total``:
    ``weight_of(terms, idf)``.

    One pass with a sliding window (the terms in it counted), and a window's coverage
    computed only where its set of terms changed, rather than every window re-read from
    its first hit: with the question's weight computed once, the ranker costs ~10 %
    less at 1M chunks (benchmarks/RESULTS.md)."""
    total = weight_of(terms, idf) if total is None else total
    if total <= 0 or not positions:
        return 0.0
    hits = sorted((i, tok) for tok, places in positions.items() for i in places)
    counts: dict[str, int] = {}
    best = 0.0
    end = 0
    changed = True
    for i, first in hits:
        while end < len(hits) and hits[end][0] - i < SEGMENT_TOKENS:
            tok = hits[end][1]
            held = counts.get(tok, 0)
            changed = changed or held == 0
            counts[tok] = held + 1
            end += 1
        if changed:
            best = max(best, coverage(terms, counts, idf, total))
            changed = False
        if counts[first] == 1:
            del counts[first]
            changed = True
        else:
            counts[first] -= 1
    return best
