"""Whether a redacted source's summary is relevant to a query, without its text.

A redacted source keeps no chunks and no vectors, so nothing secret can be
matched; what is left is what its corrector wrote to stand in for it (the
summary, or the text outside the redacted spans). A pack counts a redacted
source as relevant withheld memory when that remainder shares a meaningful
query word (``domain.query_terms``). Words are split like the lexical index
splits them (``domain.words.class_tokens``) and folded by a light suffix rule
(``domain.words.fold``) on both sides, so "deploys" finds "deploy"; the count
never shows the text.

Why ``remainder_terms``: a remainder's folded words are computed once, when
the redaction is written, and stored beside it, so a search tests a set
against a set in the store instead of reading and folding every redacted
source's text per query. ``mentions`` is the same test on the text itself.
"""

import re

from domain.query_terms import FUNCTION_WORDS, meaningful_query
from domain.words import class_tokens, fold

__all__ = [
    "REDACTED_MARK",
    "folded_terms",
    "mentions",
    "query_terms",
    "remainder_terms",
    "stand_in",
    "without_marks",
]

#: what stands in for redacted text when no summary is given; never a word of the remainder
REDACTED_MARK = "[redacted]"
#: the marks a redaction writes: ``[redacted]``, or ``[redacted: SUMMARY]`` before a summary
_MARKS = re.compile(r"\[redacted(?:\]|: )")


def stand_in(summary: str | None) -> str:
    """What replaces one redacted span: the mark, with the corrector's summary inside it."""
    return f"[redacted: {summary}]" if summary else REDACTED_MARK


def without_marks(remainder: str) -> str:
    """A remainder with its redaction marks blanked out; a summary's own words stay."""
    return _MARKS.sub(" ", remainder)


def query_terms(query: str) -> frozenset[str]:
    """The query's meaningful words, folded; function words never count as a match."""
    return folded_terms(meaningful_query(query))


def folded_terms(meaningful: str) -> frozenset[str]:
    """The folded words of a query's meaningful words (``meaningful_query``)."""
    return frozenset(fold(w) for w in class_tokens(meaningful) if w.lower() not in FUNCTION_WORDS)


def mentions(remainder: str, terms: frozenset[str]) -> bool:
    """True when the remainder of a redacted source shares a term with the query."""
    if not terms:
        return False
    return any(fold(w) in terms for w in class_tokens(remainder))


def remainder_terms(remainder: str) -> frozenset[str]:
    """Every folded word of a redacted source's remainder, the redaction marks taken out:
    it shares one of ``terms`` exactly when ``mentions(without_marks(remainder), terms)``."""
    return frozenset(fold(w) for w in class_tokens(without_marks(remainder)))
