"""The vector leg of derived recall: records near the query's meaning, above the model's floor.

The query vector is the one the retrieval pipeline embedded for its own
vector legs (handed over as it is made, never embedded a second time). A
nearest-neighbour search always answers, however unrelated the records are,
so hits under the embedder's relatedness floor
(``application.retrieval.relevance``: the cosine under which this model's
nearest item is no evidence of a match) are dropped; a model never measured
has no floor and keeps its top hits.
"""

from collections.abc import Awaitable, Callable

from application.ports.derived import QueryMeaning
from application.ports.records import ScoredId, Vector
from application.retrieval.relevance import relatedness_floor
from domain.fusion import rrf_merge
from domain.scopes import ScopeRef

__all__ = ["Meaning", "by_meaning", "fused_order"]

#: the query's meaning, once the pipeline has embedded it (None: no vector leg this time)
Meaning = Awaitable[QueryMeaning | None]

Search = Callable[
    [str, Vector, int, frozenset[ScopeRef] | None, str], Awaitable[list[ScoredId]]
]


async def by_meaning(
    search: Search,
    org_id: str,
    meaning: Meaning | None,
    limit: int,
    visible: frozenset[ScopeRef] | None,
) -> list[ScoredId]:
    """Records by similarity to the query, best first, none under the model's floor."""
    query = None if meaning is None else await meaning
    if query is None:
        return []
    hits = await search(org_id, query.vector, limit, visible, query.model)
    floor = relatedness_floor(query.model)
    return [h for h in hits if floor is None or h.score >= floor]


def fused_order(words: list[ScoredId], meaning: list[ScoredId]) -> list[str]:
    """Record ids matched by words or by meaning, in reciprocal-rank-fused order."""
    lists = {"words": [s.item_id for s in words], "meaning": [s.item_id for s in meaning]}
    return [h.item_id for h in rrf_merge(lists)]
