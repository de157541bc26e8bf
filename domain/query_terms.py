"""Which words of a query carry its meaning, for lexical matching.

BM25's idf discounts common words only in proportion to how common they are
in *this* collection; in a small memory "is" and "the" can outweigh the one
word that matters ("when is the dentist" against a note that happens to say
"the key is ..."). Function words are therefore dropped from the query side
only: documents keep every word, so phrases and stats are unaffected. A
query made only of function words is kept whole, so it still matches.
"""

from domain.words import word_tokens

__all__ = ["FUNCTION_WORDS", "meaningful_query"]

#: English function words: articles, auxiliaries, pronouns, prepositions, question words.
FUNCTION_WORDS = frozenset(
    """
    a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further
    had has have having he her here hers herself him himself his how i if in into is it its
    itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself yourselves
    s t don didn doesn isn wasn weren aren won wouldn shouldn couldn ll re ve d m o y
    """.split()  # noqa: SIM905 - a word list reads better as text
)


def meaningful_query(query: str) -> str:
    """The query's words minus function words, space-joined; the whole query if none remain."""
    words = word_tokens(query)
    kept = [w for w in words if w.lower() not in FUNCTION_WORDS]
    return " ".join(kept) if kept else " ".join(words)
