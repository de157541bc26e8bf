"""Words as the ranker compares them: its tokens stemmed, found by position.

The split and the stemmer are ``domain.words``'s ``ranker_words`` and ``stem``.
"""

from bisect import bisect_left
from collections.abc import Callable, Collection
from functools import lru_cache
from itertools import islice

from domain.query_terms import FUNCTION_WORDS
from domain.words import iter_ranker_words, ranker_words, stem

__all__ = [
    "content_terms",
    "fewer_words_than",
    "read_ahead",
    "term_hits",
    "term_prefixes",
    "tokens",
]


@lru_cache(maxsize=4096)
def tokens(text: str) -> tuple[str, ...]:
    """Every word of the text, stemmed, in order (positions matter for phrases).

    Cached: the same remembered turns are candidates for many questions, and
    re-reading ~200 candidates took a third of a warm ranked search's CPU time
    (7 of ~21 ms, ``benchmarks.tail_profile``). The bound keeps the cache to a
    few MB: 4,096 texts, each held once.
    """
    return tuple(stem(w) for w in ranker_words(text))


def _stem_prefix(term: str) -> str:
    """What every word stemming to ``term`` starts with: ``stem`` keeps a prefix of the
    word (before an apostrophe, less a suffix, a doubled letter or a final "e"), or
    such a prefix plus "y" ("ies", "ied")."""
    return term[:-1] if term.endswith("y") else term


def term_prefixes(terms: Collection[str]) -> tuple[str, ...]:
    """What ``term_hits`` looks for in a text before splitting it (see ``_stem_prefix``);
    made once a question by a caller that reads many texts."""
    return tuple({_stem_prefix(t) for t in terms})


@lru_cache(maxsize=4096)
def _words(lowered: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A lowercased text's words in order, and its distinct words sorted.

    Sorted, so the words starting with a prefix are one ``bisect`` away rather than a
    pass over every word; cached, so the texts a search reads twice (the ranker's, then
    the relevance gate's evidence) and the turns many questions share are split once
    (10k chunks, 200 questions: about half the ranker's texts found here). 4,096 texts
    of at most ~1,000 characters: ~28 MB, the bound ``tokens`` has (which no longer
    holds candidate texts)."""
    words = tuple(ranker_words(lowered))
    return words, tuple(sorted(set(words)))


def _split_if_held(
    text: str, prefixes: tuple[str, ...]
) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """``_words`` of the lowercased text, or None when no word of it can start with a
    prefix: a word starting with one holds it as a substring, so a text holding none (many
    a vector leg's candidate) is answered without splitting it into words."""
    lowered = text.lower()
    return _words(lowered) if any(p in lowered for p in prefixes) else None


def fewer_words_than(text: str, count: int) -> bool:
    """Whether ``tokens(text)`` has fewer than ``count`` words, reading only as far as the
    ``count``-th: a turn's shortness is a feature of every candidate, most of them long."""
    return sum(1 for _ in islice(iter_ranker_words(text), count)) < count


def term_hits(
    text: str, terms: Collection[str], prefixes: tuple[str, ...] | None = None
) -> dict[str, list[int]]:
    """Where each of ``terms`` that the text holds stands among its tokens: the same
    positions as in ``tokens(text)``, for those terms only.

    Why not ``tokens``: the ranker reads only the question's terms, and at 1M chunks
    its ~115 candidates a search are rarely in the tokens cache, so stemming every
    word of every candidate (~12k words) was the ranker's largest cost (benchmarks/RESULTS.md).
    Here only the text's distinct words that start like a term
    (``_stem_prefix``: a necessary condition) are stemmed, found by bisecting the sorted
    words (``_words``), and only their places are looked up.
    ``prefixes``: ``term_prefixes(terms)``.
    """
    if not terms:
        return {}
    prefixes = term_prefixes(terms) if prefixes is None else prefixes
    split = _split_if_held(text, prefixes)
    if split is None:
        return {}
    words, vocabulary = split
    wanted = terms if isinstance(terms, (set, frozenset)) else set(terms)
    matched: dict[str, str] = {}
    for prefix in prefixes:
        at = bisect_left(vocabulary, prefix)
        while at < len(vocabulary) and (word := vocabulary[at]).startswith(prefix):
            if (base := stem(word)) in wanted:
                matched[word] = base
            at += 1
    if not matched:
        return {}
    # each matched word's places by ``tuple.index`` (a scan in C) rather than a pass over
    # every word in Python: a question's few words are most of a text's matches
    out: dict[str, list[int]] = {}
    for word, base in matched.items():
        places = out.setdefault(base, [])
        at = -1
        for _ in range(words.count(word)):
            at = words.index(word, at + 1)
            places.append(at)
    if len(out) < len(matched):  # several words of one stem: their places interleave
        for places in out.values():
            places.sort()
    # in the order the terms first occur, as a pass over the words gives them
    return dict(sorted(out.items(), key=lambda item: item[1][0]))


def read_ahead(terms: Collection[str]) -> Callable[[str], None]:
    """A reader that splits a text now, as ``term_hits`` for ``terms`` (or for fewer of
    them) will split it, into the same cache: so a search can split its lexical turns
    while the model embeds its question, and the ranker finds them split."""
    prefixes = term_prefixes(terms)

    def read(text: str) -> None:
        _split_if_held(text, prefixes)

    return read


def content_terms(text: str) -> list[str]:
    """The stemmed words of a question that carry meaning, in order, without repeats."""
    seen: dict[str, None] = {}
    for word in ranker_words(text):
        base = word.split("'", 1)[0]
        if base in FUNCTION_WORDS or len(base) < 2:
            continue
        seen.setdefault(stem(base), None)
    return list(seen)
