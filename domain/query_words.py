"""A search's question, read once into the words each stage compares.

One search compares the question's words in several places: the lexical legs
and the derived records' and facts' lexical reads (its meaningful words), the
relevance evidence (those words stemmed as the ranker stems them) and the
count of relevant redacted sources (those words folded as the redactions'
stored words are). Reading the question once at the service and handing the
result down keeps every stage on the same words and splits the text once.
"""

import msgspec

from domain.query_terms import meaningful_query
from domain.ranking.text import content_terms
from domain.withheld_match import folded_terms

__all__ = ["QueryWords", "query_words"]


class QueryWords(msgspec.Struct, frozen=True, kw_only=True):
    #: the question as asked (embedded, profiled and shown as it is)
    text: str
    #: its words without function words, space-joined: what a lexical read searches
    meaningful: str
    #: those words stemmed: what a text must share with the question to bear on it
    terms: frozenset[str]
    #: those words folded: what a redacted source's stored words are matched against
    folded: frozenset[str]


def query_words(query: "str | QueryWords") -> QueryWords:
    """``query`` read into its words; a question already read is returned as it is."""
    if isinstance(query, QueryWords):
        return query
    meaningful = meaningful_query(query)
    return QueryWords(
        text=query,
        meaningful=meaningful,
        terms=frozenset(content_terms(meaningful)),
        folded=folded_terms(meaningful),
    )
