"""One index's turn: reopen the filled store, warm up, search, remember, break down."""

import asyncio
import time
from dataclasses import dataclass

from application.indexing.residency import ResidentIndex
from application.memory.commands import RememberRequest, SearchRequest
from application.ports import Embedder, RetrievalIndex
from application.services import Services
from benchmarks._breakdown import policy_breakdown, remember_breakdown, search_breakdown
from benchmarks._phases import (
    SEARCH_LIMIT,
    authorized,
    remember_phase,
    search_phase,
    time_open,
    to_vector_phase,
)
from benchmarks._policy_ab import policy_ab
from benchmarks._search_profile import print_profile, profile_interleaved, profile_searches
from benchmarks._stats import progress, summarize
from benchmarks._thread_cpu import per_operation_ms
from benchmarks._wiring import make_index, make_services, make_store, owner_key
from domain.policy import Surface
from domain.scopes import SourceType

__all__ = ["IndexPlan", "run_index"]


@dataclass(frozen=True)
class IndexPlan:
    name: str
    url: str
    org_id: str
    warmups: list[str]
    queries: list[str]
    #: queries for the interleaved phase (distinct from ``queries``)
    mixed_queries: list[str]
    #: unseen texts: remember phase, then interleaved phase, then breakdown
    remember_texts: list[str]
    mixed_texts: list[str]
    breakdown_texts: list[str]
    breakdown_queries: int
    #: keep SurrealDB's own search indexes (``_wiring.native_search_for``)
    native_search: bool = True
    #: seconds to wait after the warm-ups, then one more untimed search: background
    #: index work the first searches started (the episode postings) lands before timing
    settle_s: float = 0.0
    #: distinct questions searched under cProfile after the timed searches (none: no profile)
    profile_queries: tuple[str, ...] = ()
    #: (unseen text, distinct question) pairs: remembered, then searched under cProfile,
    #: after the interleaved phase (none: no such profile)
    profile_pairs: tuple[tuple[str, str], ...] = ()


async def _interleaved(
    plan: IndexPlan,
    services: Services,
    key: str,
    remember_ms: list[float],
    search_ms: list[float],
    search_cpu_ms: list[float],
    remember_cpu_ms: list[float],
) -> None:
    """remember, then search, alternately: what a live agent does. A search's CPU time is
    the process's (the remember's background lane may add to it while the search runs)."""
    for text, query in zip(plan.mixed_texts, plan.mixed_queries, strict=False):
        request = RememberRequest(org_id=plan.org_id, content=text, source_type=SourceType.TURN)
        began, cpu = time.perf_counter(), time.process_time()
        await services.memory.remember(request, await authorized(services, key))
        remember_ms.append((time.perf_counter() - began) * 1000)
        remember_cpu_ms.append((time.process_time() - cpu) * 1000)
        began, cpu = time.perf_counter(), time.process_time()
        search = SearchRequest(org_id=plan.org_id, query=query, limit=SEARCH_LIMIT)
        await services.memory.search(search, await authorized(services, key))
        search_ms.append((time.perf_counter() - began) * 1000)
        search_cpu_ms.append((time.process_time() - cpu) * 1000)


def _snapshot_outcome(services: Services, org_id: str) -> str:
    """How the snapshotting index opened: ``loaded`` from its snapshot, or why it rebuilt."""
    keeper = services.memory._readiness.snapshots
    if keeper is None:
        return "no snapshots (this index keeps none)"
    return str(keeper.outcomes.get(org_id, "none"))


async def await_retrain(
    services: Services, index: RetrievalIndex, key: str, org_id: str, query: str
) -> float:
    """Seconds waited for a background retrain of the organisation's vector index (after
    an upgrade or 4x growth, once: ``adapters/inprocess/graph_retrain.py``). Timing
    searches beside it would measure the retrain, not the service; the retrained index
    replaces the old one at a search, so one is made each second until it has."""
    began = time.perf_counter()
    while isinstance(index, ResidentIndex):
        held = index.residency(org_id)
        if held is None or not held.retraining:
            break
        await asyncio.sleep(1.0)
        request = SearchRequest(org_id=org_id, query=query, limit=SEARCH_LIMIT)
        await services.memory.search(request, await authorized(services, key))
    return time.perf_counter() - began


async def run_index(plan: IndexPlan, embedder: Embedder) -> dict[str, object]:
    store = make_store(plan.url, native_search=plan.native_search)
    index = make_index(plan.name, store)
    services = make_services(store, index, embedder, plan.org_id)
    try:
        progress(f"[{plan.name}] opening the store and warming the index")
        began = time.perf_counter()
        opener = getattr(store, "open", None)  # SurrealMemoryStore: connect (and recover) now
        if opener is not None:
            await opener()
        store_open_s = time.perf_counter() - began
        warm_s = await time_open(services)
        opened_from = _snapshot_outcome(services, plan.org_id)
        key = await owner_key(services)
        chunks = await store.count_chunks(plan.org_id)
        progress(f"[{plan.name}] warm-up {warm_s:.2f} s over {chunks} chunks")
        query = plan.warmups[0] if plan.warmups else "what did I say"
        retrain_s = await await_retrain(services, index, key, plan.org_id, query)
        if retrain_s >= 1.0:
            progress(f"[{plan.name}] waited {retrain_s:.1f} s for the vector index's retrain")
        progress(f"[{plan.name}] search: {len(plan.warmups)} warm-ups, {len(plan.queries)} timed")
        search = await search_phase(
            services, key, plan.org_id, plan.queries, plan.warmups, settle_s=plan.settle_s
        )
        by_thread = per_operation_ms(search.threads_before, search.threads_after, len(plan.queries))
        progress(f"[{plan.name}] CPU ms a search by thread: {by_thread}")
        profile: dict[str, object] | None = None
        if plan.profile_queries:
            progress(f"[{plan.name}] profile: {len(plan.profile_queries)} searches under cProfile")
            profile = await profile_searches(services, key, plan.org_id, plan.profile_queries)
            print_profile(profile)
        progress(f"[{plan.name}] remember: {len(plan.remember_texts)} unseen turns")
        remember = await remember_phase(services, key, plan.org_id, plan.remember_texts)
        mixed_remember: list[float] = []
        mixed_search: list[float] = []
        mixed_cpu: list[float] = []
        mixed_remember_cpu: list[float] = []
        progress(f"[{plan.name}] interleaved remember+search: {len(plan.mixed_queries)} pairs")
        await _interleaved(
            plan, services, key, mixed_remember, mixed_search, mixed_cpu, mixed_remember_cpu
        )
        interleaved_profile: dict[str, object] | None = None
        if plan.profile_pairs:
            progress(f"[{plan.name}] profile: {len(plan.profile_pairs)} interleaved searches")
            interleaved_profile = await profile_interleaved(
                services, key, plan.org_id, plan.profile_pairs
            )
            print_profile(interleaved_profile)
        await services.memory.lane.drain()  # the phases above leave the lane working
        half = len(plan.breakdown_texts) // 2
        progress(f"[{plan.name}] remember to vector-searchable: {half} unseen turns")
        to_vector = await to_vector_phase(services, key, plan.org_id, plan.breakdown_texts[:half])
        progress(f"[{plan.name}] breakdown")
        search_steps = await search_breakdown(
            embedder, index, store, plan.org_id, plan.queries[: plan.breakdown_queries]
        )
        remember_steps = await remember_breakdown(
            embedder, index, store, plan.org_id, plan.breakdown_texts[half:]
        )
        policy_steps = await policy_breakdown(services, key, plan.queries[: plan.breakdown_queries])
        progress(f"[{plan.name}] policy cost: {len(plan.queries)} queries, policy vs baseline")
        fresh = make_services(store, index, embedder, plan.org_id)
        await fresh.open(Surface.API)
        policy_cost = await policy_ab(fresh, key, embedder, index, store, plan.org_id, plan.queries)
        await fresh.audit.flush()
    finally:
        await services.close()
    search_stats = summarize(search.samples_ms)
    remember_stats = summarize(remember.samples_ms)
    return {
        "index": plan.name,
        "chunks_at_open": chunks,
        "store_open_s": round(store_open_s, 3),
        "warmup_open_s": round(warm_s, 3),
        "index_opened_from": opened_from,
        "retrain_waited_s": round(retrain_s, 1),
        "search_p50_ms": search_stats.get("p50_ms"),
        "search_p95_ms": search_stats.get("p95_ms"),
        "search_p99_ms": search_stats.get("p99_ms"),
        "search_mean_ms": search_stats.get("mean_ms"),
        "remember_p50_ms": remember_stats.get("p50_ms"),
        "remember_p95_ms": remember_stats.get("p95_ms"),
        "search_cpu_ms": summarize(search.cpu_ms),
        "remember_cpu_ms": summarize(remember.cpu_ms),
        #: CPU ms a search by thread (the timed searches alone, /proc)
        "search_cpu_ms_by_thread": by_thread,
        "search": {
            **search_stats,
            "limit": SEARCH_LIMIT,
            "warmups_excluded": len(plan.warmups),
            "mean_hits": round(search.hits / max(len(plan.queries), 1), 2),
            "empty_results": search.empty_results,
        },
        "remember": {
            **remember_stats,
            "chunks_written": remember.chunks,
            "content_chars_p50": sorted(remember.chars)[len(remember.chars) // 2]
            if remember.chars
            else 0,
            "content_chars_max": max(remember.chars, default=0),
            **remember.by_chunks(),
            "embedding_cache_hits": remember.cached_embeddings,
        },
        "remember_to_vector_searchable": summarize(to_vector),
        "profile": profile,
        "interleaved": {
            "remember": summarize(mixed_remember),
            "search": summarize(mixed_search),
            "search_cpu_ms": summarize(mixed_cpu),
            "remember_cpu_ms": summarize(mixed_remember_cpu),
            "profile": interleaved_profile,
        },
        "policy_cost": policy_cost,
        "breakdown": {
            "search": search_steps,
            "remember": remember_steps,
            "policy": policy_steps,
        },
    }
