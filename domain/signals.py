"""The retrieval signals: each ranked list that can bring a chunk into the results.

A signal's value is the key of its ranked list, of its rank in a hit's ``signals``
(``<value>_rank``) and of its figures in the benchmarks, so a value never changes once
released. Each one has words in ``domain.ranking.sentences.SIGNAL_LABELS`` and on the web page.
"""

from enum import StrEnum

__all__ = ["Signal"]


class Signal(StrEnum):
    #: the chunk's own words (BM25)
    LEXICAL = "lexical"
    #: the chunk's meaning (its embedding)
    VECTOR = "vector"
    #: its episode (conversation or whole source) by words and by meaning
    EPISODE_LEXICAL = "episode_lexical"
    EPISODE_VECTOR = "episode_vector"
    #: next to a strongly matching turn
    NEIGHBOUR = "neighbour"
    #: for a counting question: by the meaning of its subject alone
    SUBJECT_VECTOR = "subject_vector"
    #: mentioned by a promoted record that matched the query's words
    ENTITY = "entity"
    #: inside a matching window of turns
    WINDOW = "window"
    #: reached by graph expansion from the matched records
    GRAPH = "graph"
    #: mentioned at an end of a matching relationship fact
    RELATION = "relation"
    #: mentioned by a promoted record that matched the query by meaning
    ENTITY_VECTOR = "entity_vector"
