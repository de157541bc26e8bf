"""Words as the ranker compares them: lowercase tokens with a light suffix stemmer.

The domain may not import a stemming library, and the ranker only needs
"plants" to meet "plant" and "visited" to meet "visit" inside a few hundred
candidates, so a small, predictable suffix rule is enough.
"""

import re
from functools import lru_cache

from domain.query_terms import FUNCTION_WORDS

__all__ = ["content_terms", "stem", "tokens"]

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
_SUFFIXES = ("ingly", "edly", "ings", "ing", "ies", "ied", "ed", "es", "s", "ly")


@lru_cache(maxsize=100_000)
def stem(word: str) -> str:
    """Strip one common English suffix, keeping at least three letters of stem."""
    word = word.split("'", 1)[0]
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            base = word[: -len(suffix)]
            if suffix in ("ies", "ied"):
                return base + "y"
            if suffix in ("s", "es") and base.endswith("s"):
                return word if suffix == "s" else base
            if len(base) > 3 and base[-1] == base[-2] and base[-1] not in "lsz":
                return base[:-1]  # "planned" -> "plann" -> "plan"
            return base
    return word


@lru_cache(maxsize=20_000)
def tokens(text: str) -> tuple[str, ...]:
    """Every word of the text, stemmed, in order (positions matter for phrases).

    Cached: the same remembered turns are candidates for many questions.
    """
    return tuple(stem(w) for w in _WORD.findall(text.lower()))


def content_terms(text: str) -> list[str]:
    """The stemmed words of a question that carry meaning, in order, without repeats."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(text.lower()):
        base = word.split("'", 1)[0]
        if base in FUNCTION_WORDS or len(base) < 2:
            continue
        seen.setdefault(stem(base), None)
    return list(seen)
