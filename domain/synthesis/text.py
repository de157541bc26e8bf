"""Sentences and how much of one a source supports, by words.

The extractive drafter quotes whole sentences of the section packs; the
verifier measures how many of a sentence's content words its cited source
contains (``lexical_support``) and whether a sentence repeats a run of words
from memory the audience may not read (``shares_run``). Words are compared
stemmed and lowercased (``domain.ranking.text``), so "decided" meets "decide".
"""

import re

from domain.ranking.text import content_terms, tokens

__all__ = ["lexical_support", "shares_run", "split_sentences"]

#: a sentence ends at . ! or ? followed by whitespace, or at a blank line
_BOUNDARY = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])|\n\s*\n")
_SPACE = re.compile(r"\s+")
#: shorter fragments ("Thanks.", "> On Mon") carry no claim worth quoting
MIN_SENTENCE_CHARS = 25
MAX_SENTENCE_CHARS = 400


def split_sentences(text: str) -> list[str]:
    """The text's sentences, whitespace collapsed, fragments and quoted-reply lines dropped."""
    kept = []
    for part in _BOUNDARY.split(text):
        lines = [ln for ln in part.splitlines() if not ln.lstrip().startswith(">")]
        sentence = _SPACE.sub(" ", " ".join(lines)).strip()
        if MIN_SENTENCE_CHARS <= len(sentence) <= MAX_SENTENCE_CHARS and any(
            c.isalpha() for c in sentence
        ):
            kept.append(sentence)
    return kept


def lexical_support(sentence: str, source: str) -> float:
    """The share of the sentence's content words that the source contains (0 to 1)."""
    terms = content_terms(sentence)
    if not terms:
        return 0.0
    present = set(tokens(source))
    return sum(1 for t in terms if t in present) / len(terms)


def shares_run(text: str, hidden: str, run: int = 8) -> bool:
    """Whether ``text`` repeats ``run`` consecutive words of ``hidden`` (a leak of its text)."""
    words = tokens(hidden)
    if len(words) < run:
        return False
    grams = {words[i : i + run] for i in range(len(words) - run + 1)}
    mine = tokens(text)
    return any(mine[i : i + run] in grams for i in range(len(mine) - run + 1))
