"""Tokenising text the way the SurrealDB analyzer does.

``class`` tokenizer (splits where the character class changes: letters,
digits, everything else), ``lowercase``, ``snowball(english)``. Matching the
native analyzer keeps the two index backends' lexical results comparable.
"""

from functools import lru_cache

import Stemmer

from domain.words import class_tokens

__all__ = ["analyze", "stem"]

_stemmer = None


@lru_cache(maxsize=200_000)
def stem(word: str) -> str:
    """Snowball english (PyStemmer), cached: the stem of one lowercased word."""
    global _stemmer
    if _stemmer is None:
        _stemmer = Stemmer.Stemmer("english")
    stem: str = _stemmer.stemWord(word)
    return stem


def analyze(text: str) -> list[str]:
    return [stem(w) for w in class_tokens(text.lower())]
