"""Where a search's CPU time goes: a cProfile of searches, summed into named stages.

Why: at 1M chunks no single stage dominates a search (benchmarks/RESULTS.md), so what to cut
next is chosen by a profile; this makes
that profile reproducible (``benchmarks.latency --profile N``) instead of ad hoc.
The stages are functions of the search path, each counted with what it calls
(cumulative time), per search, under the profiler's overhead (~1.3-1.5x):
compare stages with each other, not with the timed figures. The top functions
by own time follow, for what the stages do not name.
"""

import cProfile
import pstats
import time
from collections.abc import Sequence

from application.memory.commands import RememberRequest, SearchRequest
from application.services import Services
from benchmarks._phases import SEARCH_LIMIT, authorized
from benchmarks._stats import progress
from domain.scopes import SourceType

__all__ = ["STAGES", "print_profile", "profile_interleaved", "profile_searches"]

#: stage -> (file name ending, function name); a stage's time includes its callees
STAGES: dict[str, tuple[str, str]] = {
    "search (whole)": ("retrieval/pipeline.py", "run"),
    "turn BM25 leg": ("inprocess/index.py", "lexical"),
    "episode BM25 leg": ("inprocess/index.py", "episode_lexical"),
    "turn vector leg": ("inprocess/index.py", "vector"),
    "episode vector leg": ("inprocess/index.py", "episode_vector"),
    "HNSW searches": ("inprocess/ann.py", "nearest"),
    "query embedding": ("", "vector_for"),
    "chunk loads": ("retrieval/pipeline.py", "_with"),
    "episode expansion": ("retrieval/pipeline.py", "_expand"),
    "ranker (whole)": ("retrieval/pipeline.py", "_rank"),
    "ranker: tokens": ("ranking/text.py", "tokens"),
    "ranker: term_hits": ("ranking/text.py", "term_hits"),
    "row texts decode": ("inprocess/row_texts.py", "_decode"),
    "top-k of a leg (_OrgIndex.top)": ("inprocess/index.py", "top"),
    "live mask (_OrgIndex.live)": ("inprocess/index.py", "live"),
    "re-read and re-check (Recall.resolve)": ("retrieval/recall.py", "resolve"),
    "redacted count (withheld_redacted)": ("retrieval/withheld.py", "withheld_redacted"),
    # the store's codec (adapters/surreal/wire_codec.py), the SDK's own decoder within it
    "store answers decoded (CBOR)": ("surreal/wire_codec.py", "decode"),
    "evidence of the shown (evidence_of)": ("retrieval/evidence.py", "evidence_of"),
    "episode BM25 group stats": ("inprocess/bm25.py", "group_stats"),
    "episode plan": ("inprocess/episode_postings.py", "plan"),
    "BM25 row norms": ("inprocess/bm25.py", "_row_norm"),
    "IVF admitted rows": ("inprocess/ann.py", "_admitted"),
}


def _stage_seconds(stats: pstats.Stats) -> dict[str, float]:
    table = stats.stats  # type: ignore[attr-defined]
    out = dict.fromkeys(STAGES, 0.0)
    for (filename, _line, name), (_cc, _nc, _tt, ct, _callers) in table.items():
        for stage, (ending, function) in STAGES.items():
            if name == function and filename.endswith(ending):
                out[stage] += ct
    return out


def _top_own(stats: pstats.Stats, count: int, searches: int) -> list[str]:
    table = stats.stats  # type: ignore[attr-defined]
    rows = sorted(table.items(), key=lambda item: -item[1][2])[:count]
    out = []
    for (filename, line, name), (_cc, calls, own, cumulative, _callers) in rows:
        place = "/".join(filename.split("/")[-2:])
        per = 1000 / searches
        out.append(
            f"{own * per:7.2f} own {cumulative * per:7.2f} cum ms/search "
            f"{calls / searches:9.1f} calls  {place}:{line} {name}"
        )
    return out


async def profile_searches(
    services: Services, key: str, org_id: str, queries: Sequence[str], top: int = 25
) -> dict[str, object]:
    """Each query searched once under cProfile (main thread only: the engine's own
    threads are not in it); returns per-search stage times and the top functions."""
    profiler = cProfile.Profile()
    cpu = time.process_time()
    for query in queries:
        request = SearchRequest(org_id=org_id, query=query, limit=SEARCH_LIMIT)
        ctx = await authorized(services, key)
        profiler.enable()
        await services.memory.search(request, ctx)
        profiler.disable()
    return _summary(profiler, time.process_time() - cpu, len(queries), top)


async def profile_interleaved(
    services: Services,
    key: str,
    org_id: str,
    pairs: Sequence[tuple[str, str]],
    top: int = 25,
) -> dict[str, object]:
    """(text, query) pairs: the text remembered (not profiled), then the query searched
    under cProfile, as a live agent's searches follow its writes (each write changes the
    index, so what the index keeps per filter is what it kept across a write)."""
    profiler = cProfile.Profile()
    cpu = 0.0
    for text, query in pairs:
        remember = RememberRequest(org_id=org_id, content=text, source_type=SourceType.TURN)
        await services.memory.remember(remember, await authorized(services, key))
        request = SearchRequest(org_id=org_id, query=query, limit=SEARCH_LIMIT)
        ctx = await authorized(services, key)
        began = time.process_time()
        profiler.enable()
        await services.memory.search(request, ctx)
        profiler.disable()
        cpu += time.process_time() - began
    return _summary(profiler, cpu, len(pairs), top)


def _summary(
    profiler: cProfile.Profile, cpu_s: float, searches: int, top: int
) -> dict[str, object]:
    n = max(searches, 1)
    stats = pstats.Stats(profiler)
    stages = {k: round(v * 1000 / n, 2) for k, v in _stage_seconds(stats).items()}
    return {
        "searches": searches,
        "cpu_ms_per_search_profiled": round(cpu_s * 1000 / n, 1),
        "stage_ms_per_search": stages,
        "top_own_time": _top_own(stats, top, n),
    }


def print_profile(profile: dict[str, object]) -> None:
    """The stages and the top functions, to stderr (the JSON keeps them too)."""
    stages = profile["stage_ms_per_search"]
    assert isinstance(stages, dict)
    progress(
        f"profile over {profile['searches']} searches "
        f"({profile['cpu_ms_per_search_profiled']} CPU-ms each, profiled):"
    )
    for stage, ms in stages.items():
        progress(f"  {ms:8.2f} ms  {stage}")
    top = profile["top_own_time"]
    assert isinstance(top, list)
    for line in top:
        progress(f"  {line}")
