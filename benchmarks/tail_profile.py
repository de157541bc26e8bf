"""Are the slowest LongMemEval searches slow every time, and where does their time go?

    python -m benchmarks.tail_profile --runs tail1.json [tail2.json ...] \\
        [--slowest 3] [--median 3] [--repeats 7] [--cache-dir DIR]

Reads one or more per-question result files of ``benchmarks.longmemeval``
(ranked mode), picks the questions whose single timed search was slowest
(by their worst time over the runs) and, as a control, the ones nearest the
median. Each picked question's haystack is remembered once into a fresh
organisation on embedded SurrealDB (``mem://``) with the in-process index,
as the harness does; then its search runs ``--repeats`` times: the first
call with a query vector the model has not seen (as in the harness), the
rest warm. A cProfile of one warm repeat names the functions that take the
time. Wall and CPU time are both printed: on a shared machine the wall clock
counts other processes' work, the process's CPU time much less so. Prints a
table per question (run times, first, warm median, warm max, results read)
and the profile's top entries; the last stdout line is JSON.
Questions are chosen from the measured times only: nothing here names one.
"""

import argparse
import asyncio
import cProfile
import io
import json
import pstats
import statistics
import time
import uuid
from pathlib import Path
from typing import Any

from application.memory.commands import SearchRequest
from application.retrieval.pipeline import RetrievalMode
from benchmarks._embed_cache import CachedEmbedder, DiskEmbeddingCache
from benchmarks._lme_data import DEFAULT_LME, chunk_texts, load_questions
from benchmarks._lme_run import _ingest, owner_context, parse_when
from benchmarks._stats import machine_info
from benchmarks._wiring import make_embedder, make_index, make_store
from benchmarks.longmemeval import SEARCH_LIMIT, _service, _warm_up
from benchmarks.longmemeval_prefill import CACHE_DIR

__all__ = ["main", "pick"]


def _times(paths: list[Path]) -> dict[str, list[float]]:
    """question id -> its ranked search time in each run."""
    out: dict[str, list[float]] = {}
    for path in paths:
        for record in json.loads(path.read_text())["questions"]:
            ms = record["modes"].get("ranked", {}).get("search_ms")
            if ms is not None:
                out.setdefault(record["question_id"], []).append(float(ms))
    return out


def pick(times: dict[str, list[float]], slowest: int, median: int) -> tuple[list[str], list[str]]:
    """The ``slowest`` questions by worst time, and the ``median`` nearest the median of
    typical (per-question median) times; the two sets never overlap."""
    worst = sorted(times, key=lambda q: max(times[q]), reverse=True)[:slowest]
    typical = {q: statistics.median(v) for q, v in times.items() if q not in worst}
    if not typical:
        return worst, []
    middle = statistics.median(typical.values())
    near = sorted(typical, key=lambda q: abs(typical[q] - middle))[:median]
    return worst, near


def _top(profile: cProfile.Profile, n: int, sort: str = "cumulative") -> list[str]:
    buffer = io.StringIO()
    stats = pstats.Stats(profile, stream=buffer)
    stats.sort_stats(sort).print_stats(n)
    lines = [ln for ln in buffer.getvalue().splitlines() if ln.strip()]
    start = next((i for i, ln in enumerate(lines) if ln.lstrip().startswith("ncalls")), 0)
    return lines[start : start + n + 1]


async def _measure(args: argparse.Namespace) -> dict[str, Any]:
    times = _times(args.runs)
    slow, control = pick(times, args.slowest, args.median)
    wanted = {q: "slow" for q in slow} | {q: "median" for q in control}
    items = {i["question_id"]: i for i in load_questions(args.data) if i["question_id"] in wanted}
    model = make_embedder()
    cached = CachedEmbedder(model, DiskEmbeddingCache(args.cache_dir, model.space))
    store = make_store("mem://")
    index = make_index("inprocess", store)
    ingest = _service(store, index, cached, RetrievalMode.RANKED)
    searcher = _service(store, index, model, RetrievalMode.RANKED)
    rows: list[dict[str, Any]] = []
    # as the harness does: the first search of a process loads the model, the engine's
    # query paths and the stemmer's cache; no question should pay for that here either
    await _warm_up({"ingest": ingest, "ranked": searcher})
    try:
        for qid, role in wanted.items():
            item = items[qid]
            org = f"tail-{uuid.uuid4().hex[:8]}"
            await cached.prefill(chunk_texts(item))
            await _ingest(ingest, org, item)
            request = SearchRequest(
                org_id=org,
                query=item["question"],
                limit=SEARCH_LIMIT,
                as_of=parse_when(item["question_date"]),
            )
            runs: list[float] = []
            cpu: list[float] = []
            hits = 0
            # CPU time, not wall time: on a shared machine the wall clock counts other work
            profile = cProfile.Profile(time.process_time)
            # ``--cold`` profiles the first call (its times then include the profiler's
            # overhead); otherwise one more, warm call after the timed ones
            for n in range(args.repeats + (0 if args.cold else 1)):
                profiled = n == (0 if args.cold else args.repeats)
                t0, c0 = time.perf_counter(), time.process_time()
                if profiled:
                    profile.enable()
                found = await searcher.search(request, owner_context(org))
                if profiled:
                    profile.disable()
                if n < args.repeats:
                    runs.append((time.perf_counter() - t0) * 1000)
                    cpu.append((time.process_time() - c0) * 1000)
                hits = len(found.results)
            rows.append(
                {
                    "role": role,
                    "type": item["question_type"],
                    "harness_ms": times[qid],
                    "first_ms": round(runs[0], 1),
                    "warm_median_ms": round(statistics.median(runs[1:]), 1),
                    "warm_max_ms": round(max(runs[1:]), 1),
                    "first_cpu_ms": round(cpu[0], 1),
                    "warm_cpu_median_ms": round(statistics.median(cpu[1:]), 1),
                    "results": hits,
                    "chunks": sum(len(s) for s in item["haystack_sessions"]),
                    "profile": _top(profile, args.top, args.sort),
                }
            )
            await ingest.drop_organization(org)
    finally:
        await ingest.close()
    return {"machine": machine_info(), "questions": rows}


def _print(report: dict[str, Any]) -> None:
    print(
        "| role | type | harness runs ms | first ms | warm median ms | warm max ms "
        "| first CPU ms | warm CPU median ms | turns |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in report["questions"]:
        runs = ", ".join(f"{t:.0f}" for t in r["harness_ms"])
        print(
            f"| {r['role']} | {r['type']} | {runs} | {r['first_ms']} | "
            f"{r['warm_median_ms']} | {r['warm_max_ms']} | {r['first_cpu_ms']} | "
            f"{r['warm_cpu_median_ms']} | {r['chunks']} |"
        )
    for r in report["questions"]:
        print(f"\n## {r['role']} {r['type']}: one profiled search, CPU seconds")
        print("\n".join(r["profile"]))


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.tail_profile", description=__doc__)
    p.add_argument("--runs", type=Path, nargs="+", required=True)
    p.add_argument("--data", type=Path, default=DEFAULT_LME)
    p.add_argument("--slowest", type=int, default=3)
    p.add_argument("--median", type=int, default=3)
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--cold", action="store_true", help="profile the first call, not a warm one")
    p.add_argument("--sort", choices=["cumulative", "tottime"], default="cumulative")
    p.add_argument("--cache-dir", type=Path, default=CACHE_DIR)
    args = p.parse_args(argv)
    report = asyncio.run(_measure(args))
    _print(report)
    print(json.dumps({k: v for k, v in report.items()}))


if __name__ == "__main__":
    main()
