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
_SUFFIXES = ("ingly", "edly", "ings", "ing", "ies", "ied", "ed", "es", "s")
#: endings where a final "s" or "ed" belongs to the word ("previous", "analysis", "speed")
_KEEP_S = ("us", "ss", "is")


@lru_cache(maxsize=100_000)
def stem(word: str) -> str:
    """Strip one common English suffix (keeping a stem of three letters), then a final "e".

    Dropping the final "e" lets "make", "making" and "made"-less forms meet
    ("mak"), and "bottle" meet "bottles"; both sides of a comparison are
    stemmed alike, so the odd-looking stems never matter.
    """
    word = word.split("'", 1)[0]
    for suffix in _SUFFIXES:
        if not word.endswith(suffix) or len(word) - len(suffix) < 3:
            continue
        base = word[: -len(suffix)]
        if suffix == "s" and word.endswith(_KEEP_S):
            break
        if suffix == "ed" and base.endswith("e"):
            break  # "speed", "need"
        if suffix in ("ies", "ied"):
            word = base + "y"
        elif len(base) > 3 and base[-1] == base[-2] and base[-1] not in "lsz":
            word = base[:-1]  # "planned" -> "plann" -> "plan"
        else:
            word = base
        break
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word


@lru_cache(maxsize=4096)
def tokens(text: str) -> tuple[str, ...]:
    """Every word of the text, stemmed, in order (positions matter for phrases).

    Cached: the same remembered turns are candidates for many questions, and
    re-reading ~200 candidates took a third of a warm ranked search's CPU time
    (7 of ~21 ms, ``benchmarks.tail_profile``). The bound keeps the cache to a
    few MB: 4,096 texts, each held once.
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
