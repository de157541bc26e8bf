"""How text is split into words and how a word is folded, for every stage that compares words.

Four splits, because their readers need different things:

- ``word_tokens``: letters and digits of any script, as written. A query's meaning
  (``domain.query_terms``) and phrase checks, where "utf8" and "Zoë" stay whole.
- ``class_tokens``: runs of letters or of digits, split where the class changes, as
  the lexical index's ``class`` tokenizer splits them ("v2" is "v", "2"); the
  withheld-redaction match uses it so its words are the index's words.
- ``ranker_words``: lowercase ASCII letters and digits with an apostrophe's tail
  ("ana's"). The learned ranker's weights were fitted on features read this way.
- ``name_words``: a person's name in parts, an apostrophe or hyphen kept inside a
  part ("O'Neill", "Jean-Luc"), so a filter on a name never matches a fragment.

Two suffix rules, because what they produce is kept:

- ``stem``: the ranker's, behind its learned weights.
- ``fold``: the withheld match's, whose folded words are stored beside each redaction
  (``remainder_terms``); a different rule would miss those already written.

The domain may not import a stemming library, and both only need "plants" to meet
"plant" inside a small set, so a small, predictable suffix rule is enough.
"""

import re
from collections.abc import Iterator
from functools import lru_cache

__all__ = [
    "class_tokens",
    "fold",
    "iter_ranker_words",
    "name_words",
    "ranker_words",
    "stem",
    "word_tokens",
]

#: a word in any script: letters and digits, no underscore
_WORD = re.compile(r"[^\W_]+")
#: a name's part: letters and digits, joined across an apostrophe or hyphen
_NAME_PART = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")
#: a run of letters or a run of digits
_CLASS_RUN = re.compile(r"[^\W\d_]+|\d+")
#: the ranker's word: ASCII letters and digits, with an apostrophe's tail ("ana's")
_RANKER_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")

_STEM_SUFFIXES = ("ingly", "edly", "ings", "ing", "ies", "ied", "ed", "es", "s")
#: endings where a final "s" or "ed" belongs to the word ("previous", "analysis", "speed")
_KEEP_S = ("us", "ss", "is")
#: longest first: "ies" before "es" before "s"
_FOLD_SUFFIXES = (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", ""))


def word_tokens(text: str) -> list[str]:
    """``text``'s words as written (any script), in order."""
    return _WORD.findall(text)


def class_tokens(text: str) -> list[str]:
    """``text``'s runs of letters and runs of digits, as written, in order."""
    return _CLASS_RUN.findall(text)


def name_words(text: str) -> list[str]:
    """The parts of a name as written, in order."""
    return _NAME_PART.findall(text)


def ranker_words(text: str) -> list[str]:
    """``text``'s words as the ranker reads them, lowercased, in order."""
    return _RANKER_WORD.findall(text.lower())


def iter_ranker_words(text: str) -> Iterator[str]:
    """``ranker_words(text)`` one at a time, for a reader that may stop early."""
    return (match[0] for match in _RANKER_WORD.finditer(text.lower()))


@lru_cache(maxsize=100_000)
def stem(word: str) -> str:
    """The ranker's stem: strip one common English suffix (keeping a stem of three
    letters), then a final "e".

    Dropping the final "e" lets "make", "making" and "made"-less forms meet
    ("mak"), and "bottle" meet "bottles"; both sides of a comparison are
    stemmed alike, so the odd-looking stems never matter.
    """
    word = word.split("'", 1)[0]
    for suffix in _STEM_SUFFIXES:
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


def fold(word: str) -> str:
    """The withheld match's fold: a word lowercased, one common English suffix and then a
    final "e" taken off, keeping at least 3 letters: "databases", "database" -> "databas";
    "deploying" -> "deploy"."""
    word = word.lower()
    for suffix, replacement in _FOLD_SUFFIXES:
        if suffix == "s" and word.endswith("ss"):
            break
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)] + replacement
            break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word
