"""Timed phases through the application layer: open, remember, search.

Every sample is what one HTTP request does, minus HTTP: authenticate the API
key into a policy context, then one awaited use-case call, timed with
``perf_counter`` from the key to the return.
"""

import asyncio
import sys
import time
from collections.abc import Sequence

from application.memory.commands import RememberRequest, SearchRequest
from application.services import Services
from benchmarks._stats import summarize
from benchmarks._thread_cpu import ThreadTimes, thread_times
from domain.policy import MemoryPolicyContext, Surface
from domain.scopes import SourceType

__all__ = [
    "RememberRun",
    "SearchRun",
    "authorized",
    "remember_phase",
    "search_phase",
    "time_open",
]

SEARCH_LIMIT = 10


async def time_open(services: Services) -> float:
    """Seconds for ``Services.open``: migrations check plus (for a derived index) the rebuild."""
    began = time.perf_counter()
    await services.open(Surface.API)
    return time.perf_counter() - began


async def authorized(services: Services, key: str) -> MemoryPolicyContext:
    """What every request starts with: the key checked, the caller's grants loaded."""
    _, ctx = await services.session(key, Surface.API)
    return ctx


class RememberRun:
    def __init__(self) -> None:
        self.samples_ms: list[float] = []
        #: the process's CPU time over each remember (the lane's embedding threads
        #: working for earlier remembers included: compare arms, not absolutes)
        self.cpu_ms: list[float] = []
        self.chunk_counts: list[int] = []
        self.chars: list[int] = []
        self.cached_embeddings = 0

    @property
    def chunks(self) -> int:
        return sum(self.chunk_counts)

    def by_chunks(self) -> dict[str, dict[str, float]]:
        """Latency of one-chunk and multi-chunk remembers: model time grows with the chunks."""
        pairs = list(zip(self.samples_ms, self.chunk_counts, strict=True))
        return {
            "one_chunk": summarize([ms for ms, n in pairs if n == 1]),
            "multi_chunk": summarize([ms for ms, n in pairs if n > 1]),
        }


async def remember_phase(
    services: Services, key: str, org_id: str, texts: Sequence[str]
) -> RememberRun:
    run = RememberRun()
    for number, text in enumerate(texts, start=1):
        request = RememberRequest(org_id=org_id, content=text, source_type=SourceType.TURN)
        began, cpu = time.perf_counter(), time.process_time()
        result = await services.memory.remember(request, await authorized(services, key))
        run.samples_ms.append((time.perf_counter() - began) * 1000)
        run.cpu_ms.append((time.process_time() - cpu) * 1000)
        run.chunk_counts.append(len(result.chunk_ids))
        run.chars.append(len(text))
        run.cached_embeddings += result.cached_embeddings
        if number % 50 == 0:
            print(f"  remembered {number}/{len(texts)}", file=sys.stderr)
    return run


async def to_vector_phase(
    services: Services, key: str, org_id: str, texts: Sequence[str]
) -> list[float]:
    """Milliseconds from calling remember to the memory being searchable by vector: remember
    returns once it is stored and lexical; the lane then embeds it (drained here)."""
    samples: list[float] = []
    for text in texts:
        request = RememberRequest(org_id=org_id, content=text, source_type=SourceType.TURN)
        began = time.perf_counter()
        await services.memory.remember(request, await authorized(services, key))
        await services.memory.lane.drain()
        samples.append((time.perf_counter() - began) * 1000)
    return samples


class SearchRun:
    def __init__(self) -> None:
        self.samples_ms: list[float] = []
        #: CPU of the whole process per search (every thread: the engine's too): on a
        #: loaded machine the steadier figure, wall time mostly waiting for a core there
        self.cpu_ms: list[float] = []
        self.empty_results = 0
        self.hits = 0
        #: each thread's CPU as the timed searches began (after the warm-ups and the settle,
        #: whose background builds are not a search's) and as they ended
        self.threads_before: ThreadTimes = {}
        self.threads_after: ThreadTimes = {}


async def search_phase(
    services: Services,
    key: str,
    org_id: str,
    queries: Sequence[str],
    warmups: Sequence[str],
    settle_s: float = 0.0,
) -> SearchRun:
    """Warm-up queries first (not timed), then each query once.

    All queries are distinct and the service is fresh, so its query-vector
    LRU never hits: every timed search embeds its query.
    """
    for query in warmups:
        request = SearchRequest(org_id=org_id, query=query, limit=SEARCH_LIMIT)
        await services.memory.search(request, await authorized(services, key))
    if settle_s > 0 and warmups:
        await asyncio.sleep(settle_s)
        request = SearchRequest(org_id=org_id, query=warmups[0], limit=SEARCH_LIMIT)
        await services.memory.search(request, await authorized(services, key))
    run = SearchRun()
    slow_report = time.perf_counter()
    run.threads_before = thread_times()
    for number, query in enumerate(queries, start=1):
        request = SearchRequest(org_id=org_id, query=query, limit=SEARCH_LIMIT)
        began, cpu = time.perf_counter(), time.process_time()
        results = await services.memory.search(request, await authorized(services, key))
        run.samples_ms.append((time.perf_counter() - began) * 1000)
        run.cpu_ms.append((time.process_time() - cpu) * 1000)
        run.hits += len(results.results)
        run.empty_results += not results.results
        if number % 50 == 0 or time.perf_counter() - slow_report > 30:
            slow_report = time.perf_counter()
            print(f"  searched {number}/{len(queries)}", file=sys.stderr)
    run.threads_after = thread_times()
    return run
