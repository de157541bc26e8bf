"""What the memory policy costs a search, measured as a ratio within one run.

Each query is searched twice, interleaved and in alternating order so drift
and background load fall on both arms alike:

- ``policy``: what an HTTP request does now: the key authenticated into a
  policy context, then ``MemoryService.search`` (candidates filtered inside
  the index queries by the readable spaces, every item re-checked, a receipt
  queued).
- ``baseline``: the search as it was before the trust layer (commit
  49ea579), rebuilt from the same ports: embed, BM25 and vector candidates
  with no filter, RRF, load the chunks, keep the active ones.

Both arms embed every query (the policy arm runs on fresh services, so its
query-vector cache starts empty).
"""

import asyncio
import time
from collections.abc import Sequence

from application.memory.commands import SearchRequest
from application.ports import Embedder, MemoryStore, RetrievalIndex
from application.ports.records import CandidateFilter
from application.services import Services
from benchmarks._phases import SEARCH_LIMIT, authorized
from benchmarks._stats import summarize
from domain.fusion import rrf_merge
from domain.lifecycle import recall_key
from domain.query_terms import meaningful_query

__all__ = ["policy_ab"]

#: as MemoryService asked each signal for, at limit 10
_DEPTH = 50


async def _baseline(
    embedder: Embedder, index: RetrievalIndex, store: MemoryStore, org_id: str, query: str
) -> int:
    (vector,) = await embedder.embed([query])
    everything = CandidateFilter()
    lexical, semantic = await asyncio.gather(
        index.lexical(org_id, meaningful_query(query), _DEPTH, everything),
        index.vector(org_id, vector, _DEPTH, everything),
    )
    fused = rrf_merge(
        {"lexical": [h.item_id for h in lexical], "vector": [h.item_id for h in semantic]}
    )[:SEARCH_LIMIT]
    chunks = await store.get_chunks(org_id, [h.item_id for h in fused])
    return sum(
        1
        for c in chunks.values()
        if everything.admits(c.scope, c.scope_key, recall_key(c.lifecycle, (), None))
    )


async def policy_ab(
    services: Services,
    key: str,
    embedder: Embedder,
    index: RetrievalIndex,
    store: MemoryStore,
    org_id: str,
    queries: Sequence[str],
) -> dict[str, object]:
    policy_ms: list[float] = []
    baseline_ms: list[float] = []
    hits = {"policy": 0, "baseline": 0}
    for n, query in enumerate(queries):
        arms = ["policy", "baseline"] if n % 2 == 0 else ["baseline", "policy"]
        for arm in arms:
            began = time.perf_counter()
            if arm == "policy":
                request = SearchRequest(org_id=org_id, query=query, limit=SEARCH_LIMIT)
                found = await services.memory.search(request, await authorized(services, key))
                policy_ms.append((time.perf_counter() - began) * 1000)
                hits["policy"] += len(found.results)
            else:
                hits["baseline"] += await _baseline(embedder, index, store, org_id, query)
                baseline_ms.append((time.perf_counter() - began) * 1000)
    policy, baseline = summarize(policy_ms), summarize(baseline_ms)
    return {
        "queries": len(queries),
        "policy": policy,
        "baseline": baseline,
        "p50_ratio": round(policy["p50_ms"] / baseline["p50_ms"], 3),
        "p95_ratio": round(policy["p95_ms"] / baseline["p95_ms"], 3),
        "hits": hits,
    }
