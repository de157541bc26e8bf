"""Where the time goes: the steps of search and remember timed one by one.

These call the ports directly, in the order the use cases do (the lexical
query minus function words, as ``MemoryService`` sends it), so the
end-to-end figures can be split into model, index and store time. The
service runs the lexical and vector lookups concurrently; here they run one
after the other, so their sum overstates that part of a search slightly.
"""

import time
from collections.abc import Sequence
from datetime import UTC, datetime

from adapters.system.ids import TimeOrderedIds
from application.enrichment.embedding import embed_queries
from application.ports import Embedder, MemoryStore, RetrievalIndex
from application.ports.records import CandidateFilter
from application.services import Services
from application.trust.guard import candidate_filter
from benchmarks._fill import ACTOR, bench_writer
from benchmarks._stats import summarize
from domain.composition import compose_memory
from domain.fusion import rrf_merge
from domain.policy import Surface
from domain.query_terms import meaningful_query
from domain.scopes import SourceType

__all__ = ["policy_breakdown", "remember_breakdown", "search_breakdown"]

#: MemoryService asks each signal for max(limit * 5, 50) candidates; limit is 10
_DEPTH = 50
_LIMIT = 10


def _ms(since: float) -> float:
    return (time.perf_counter() - since) * 1000


async def search_breakdown(
    embedder: Embedder,
    index: RetrievalIndex,
    store: MemoryStore,
    org_id: str,
    queries: Sequence[str],
) -> dict[str, dict[str, float]]:
    steps: dict[str, list[float]] = {"embed": [], "lexical": [], "vector": [], "get_chunks": []}
    where = CandidateFilter()
    for query in queries:
        began = time.perf_counter()
        (vector,) = await embed_queries(embedder, [query])  # the run a search uses
        steps["embed"].append(_ms(began))
        began = time.perf_counter()
        lexical = await index.lexical(org_id, meaningful_query(query), _DEPTH, where)
        steps["lexical"].append(_ms(began))
        began = time.perf_counter()
        semantic = await index.vector(org_id, vector, _DEPTH, where)
        steps["vector"].append(_ms(began))
        fused = rrf_merge(
            {"lexical": [h.item_id for h in lexical], "vector": [h.item_id for h in semantic]}
        )
        began = time.perf_counter()
        await store.get_chunks(org_id, [h.item_id for h in fused[:_LIMIT]])
        steps["get_chunks"].append(_ms(began))
    return {name: summarize(samples) for name, samples in steps.items()}


async def remember_breakdown(
    embedder: Embedder,
    index: RetrievalIndex,
    store: MemoryStore,
    org_id: str,
    texts: Sequence[str],
) -> dict[str, dict[str, float]]:
    """The two halves of remember on unseen texts, through the real write path: the write
    (cache lookup, one store transaction, index; what a caller waits for) and the lane
    (model, attaching the vectors; off the caller's path)."""
    steps: dict[str, list[float]] = {"write": [], "lane_embed_attach": []}
    ids = TimeOrderedIds()
    writer = bench_writer(store, index, embedder)
    for text in texts:
        memory = compose_memory(
            new_id=ids.new_id,
            org_id=org_id,
            actor_id=ACTOR,
            content=text,
            now=datetime.now(UTC),
            source_type=SourceType.TURN,
        )
        began = time.perf_counter()
        await writer.write(org_id, [memory])
        steps["write"].append(_ms(began))
        began = time.perf_counter()
        await writer.lane.drain()
        steps["lane_embed_attach"].append(_ms(began))
    await writer.lane.stop()
    return {name: summarize(samples) for name, samples in steps.items()}


async def policy_breakdown(
    services: Services, key: str, queries: Sequence[str]
) -> dict[str, dict[str, float]]:
    """What the policy adds to a request: the key and grants, and the candidate filter.

    ``session`` is authentication plus the policy context (the grants are cached
    for a few seconds, the key is read every time); ``filter`` computes the
    readable spaces; ``audit_note`` logs and queues one receipt (written later).
    """
    steps: dict[str, list[float]] = {"session": [], "filter": [], "audit_note": []}
    for query in queries:
        began = time.perf_counter()
        _, ctx = await services.session(key, Surface.API)
        steps["session"].append(_ms(began))
        began = time.perf_counter()
        candidate_filter(ctx)
        steps["filter"].append(_ms(began))
        began = time.perf_counter()
        services.audit.note(ctx, "benchmark", hashes={"query": query[:0]})
        steps["audit_note"].append(_ms(began))
    await services.audit.flush()
    return {name: summarize(samples) for name, samples in steps.items()}
