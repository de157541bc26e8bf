"""Opening a store whose vector index is due for retraining: served at once, retrained beside.

    python -m benchmarks.retrain_open --data-dir /path/filled [--org bench] [--after 100]

A snapshot whose inverted lists no longer fit its rows (an organisation grown
4x past the rows its lists were trained on, or an earlier release's coarser
lists) opens with the index it has while a finer one is trained in a
background thread (``adapters/inprocess/graph_retrain.py``). This opens such a
store as ``tessera serve`` would, then searches (LongMemEval questions, one
every ``--gap-ms``, as one client) until the retrained index serves and for
``--after`` searches more, and reports:

- the open (seconds), the lists before and after, the rows they were trained on;
- when the new index replaced the old one (seconds after the open ended);
- search latency while the retrain ran and after it (p50 / p95 / p99 ms);
- the process's memory (VmRSS, RssAnon, RssFile from /proc): after the open,
  the highest anonymous memory seen between searches, and 5 s after the last
  search (the old lists handed back to the system by then);
- the clean close, which writes the retrained index into the snapshot.

The close replaces the snapshot: run it on a copy of the folder to measure it
again. Where no retrain is due it says so and stops. Prints one JSON object.
"""

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

from benchmarks._data import DATA_HELP, load_corpus
from benchmarks._footprint import anon_rss_mb, file_rss_mb, rss_mb
from benchmarks._stats import code_version, machine_info, progress, summarize

__all__ = ["main", "split_by_phase"]


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.retrain_open", description=__doc__)
    p.add_argument("--data-dir", type=Path, required=True, help="holds db/ and db.index/")
    p.add_argument("--org", default="bench")
    p.add_argument("--data", type=Path, help=DATA_HELP)
    p.add_argument("--gap-ms", type=float, default=100.0, help="pause between two searches")
    p.add_argument("--after", type=int, default=100, help="searches after the new index serves")
    p.add_argument("--timeout", type=float, default=1800.0, help="give up after (seconds)")
    return p.parse_args(argv)


def split_by_phase(
    samples: list[tuple[float, bool]],
) -> tuple[list[float], list[float]]:
    """(latencies while the retrain ran, latencies after): ``samples`` are (ms, ran)."""
    return [ms for ms, ran in samples if ran], [ms for ms, ran in samples if not ran]


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    from application.memory.commands import SearchRequest
    from benchmarks._phases import SEARCH_LIMIT, authorized, time_open
    from benchmarks._wiring import make_embedder, make_index, make_services, make_store, owner_key

    questions = load_corpus(args.data).questions
    store = make_store(f"surrealkv://{args.data_dir / 'db'}", native_search=False)
    index = make_index("inprocess", store)
    services = make_services(store, index, make_embedder(), args.org)
    open_s = await time_open(services)
    opened = time.perf_counter()
    key = await owner_key(services)
    held = index._orgs[args.org]  # type: ignore[attr-defined]
    graph = held.graph
    before = (None, None) if graph is None else (graph.lists, graph.trained_rows)
    del graph  # held here, the old lists could not be handed back once replaced
    out: dict[str, Any] = {
        "benchmark": "retrain_open",
        "machine": machine_info(),
        "code": code_version(),
        "open_s": round(open_s, 1),
        "rows": held.size,
        "lists_before": before[0],
        "trained_rows_before": before[1],
        "retrain_due": held.retrain is not None,
        "rss_after_open_mb": rss_mb(),
        "anon_after_open_mb": anon_rss_mb(),
        "file_after_open_mb": file_rss_mb(),
    }
    progress(f"open {open_s:.1f} s, {held.size} rows, retrain due: {out['retrain_due']}")
    if held.retrain is None:
        await services.close()
        return out
    samples: list[tuple[float, bool]] = []
    peak_anon = anon_rss_mb() or 0.0
    served_at: float | None = None
    after = 0
    n = 0
    while after < args.after and time.perf_counter() - opened < args.timeout:
        ran = held.retrain is not None
        began = time.perf_counter()
        request = SearchRequest(
            org_id=args.org, query=questions[n % len(questions)], limit=SEARCH_LIMIT
        )
        await services.memory.search(request, await authorized(services, key))
        samples.append(((time.perf_counter() - began) * 1000, ran))
        n += 1
        peak_anon = max(peak_anon, anon_rss_mb() or 0.0)
        if served_at is None and held.retrain is None:
            served_at = time.perf_counter() - opened
            progress(f"the retrained index serves {served_at:.1f} s after the open")
        after += 0 if served_at is None else 1
        await asyncio.sleep(args.gap_ms / 1000)
    await asyncio.sleep(5)  # the old lists go back to the system in a thread of their own
    during, later = split_by_phase(samples)
    graph = held.graph
    out.update(
        {
            "served_after_open_s": None if served_at is None else round(served_at, 1),
            "lists_after": None if graph is None else graph.lists,
            "trained_rows_after": None if graph is None else graph.trained_rows,
            "search_ms_while_retraining": summarize(during),
            "search_ms_after": summarize(later),
            "peak_anon_mb_between_searches": round(peak_anon, 1),
            "rss_5s_after_mb": rss_mb(),
            "anon_5s_after_mb": anon_rss_mb(),
            "file_5s_after_mb": file_rss_mb(),
        }
    )
    began = time.perf_counter()
    await services.close()
    out["close_s"] = round(time.perf_counter() - began, 1)
    return out


def main(argv: list[str] | None = None) -> None:
    args = _parse(argv)
    print(json.dumps(asyncio.run(_main(args))))


if __name__ == "__main__":
    main()
