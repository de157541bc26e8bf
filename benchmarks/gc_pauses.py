"""Full garbage collections inside searches, with the service's startup objects frozen or not.

    python -m benchmarks.gc_pauses --data-dir COPY [--arm walked|frozen] [--pairs 150]

CPython's cyclic collector walks every tracked container in a full
collection. A service taking writes runs one every few hundred requests, on
the event loop, inside whichever request it falls in. This opens a filled
store as ``tessera serve`` does, in one of two arms:

- ``walked``: as ``tessera serve`` runs: every full collection walks every
  tracked object;
- ``frozen``: the objects built before the open frozen out of the walks
  (``gc.collect()`` then ``gc.freeze()``): a lever measured, not taken
  (docs/decisions/investigations.md: frozen objects in a garbage
  cycle are never collected, and one such cycle can hold an organisation's
  index evicted later).

Then ``--pairs`` remembers (one LongMemEval turn) each followed by a timed
search. Reported: the tracked and frozen objects, a forced full collection's
duration (median of three: what an automatic one costs), the searches' wall
p50/p95/p99/max, and every automatic collection of the oldest generation that
ran during the pairs (count, durations, how many fell inside a search).

COPY: a copy of a filled store (db/ and db.index/). It writes to the store: run
each arm on a fresh copy. Prints one JSON object.
"""

import argparse
import asyncio
import gc
import json
import statistics
import time
from pathlib import Path
from typing import Any

from benchmarks._data import DATA_HELP, load_corpus
from benchmarks._stats import code_version, machine_info, progress, summarize

__all__ = ["main"]


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.gc_pauses", description=__doc__)
    p.add_argument("--data-dir", type=Path, required=True, help="a copy: holds db/ and db.index/")
    p.add_argument("--org", default="bench")
    p.add_argument("--data", type=Path, help=DATA_HELP)
    p.add_argument("--arm", choices=["walked", "frozen"], default="walked")
    p.add_argument("--pairs", type=int, default=150, help="remember + search pairs")
    return p.parse_args(argv)


class _Collections:
    """Every collection of the oldest generation, timed by the collector's callbacks."""

    def __init__(self) -> None:
        self.full_ms: list[float] = []
        self._began = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            self._began = time.perf_counter()
        else:
            self.full_ms.append((time.perf_counter() - self._began) * 1000)


def _forced_full_ms() -> float:
    samples = []
    for _ in range(3):
        began = time.perf_counter()
        gc.collect()
        samples.append((time.perf_counter() - began) * 1000)
    return round(statistics.median(samples), 1)


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    from application.memory.commands import RememberRequest, SearchRequest
    from benchmarks._phases import SEARCH_LIMIT, authorized, time_open
    from benchmarks._wiring import make_embedder, make_index, make_services, make_store, owner_key
    from domain.scopes import SourceType
    from domain.visible_text import has_visible_text

    corpus = load_corpus(args.data)
    turns = [t for t in corpus.turns if has_visible_text(t)]
    store = make_store(f"surrealkv://{args.data_dir / 'db'}", native_search=False)
    index = make_index("inprocess", store)
    services = make_services(store, index, make_embedder(), args.org)
    if args.arm == "frozen":
        gc.collect()
        gc.freeze()
    open_s = await time_open(services)
    policy = await authorized(services, await owner_key(services))
    for question in corpus.questions[:10]:  # warm: the query model, the filter caches
        await services.memory.search(
            SearchRequest(org_id=args.org, query=question, limit=SEARCH_LIMIT), policy
        )
    seen = _Collections()
    searches: list[float] = []
    inside = 0
    out: dict[str, Any] = {
        "benchmark": "gc_pauses",
        "machine": machine_info(),
        "code": code_version(),
        "arm": args.arm,
        "open_s": round(open_s, 1),
        "rows_at_open": index._orgs[args.org].size,  # type: ignore[attr-defined]
        "tracked_objects": len(gc.get_objects()),
        "frozen_objects": gc.get_freeze_count(),
        "forced_full_collection_ms": _forced_full_ms(),
    }
    gc.callbacks.append(seen)
    try:
        for used in range(args.pairs):
            request = RememberRequest(
                org_id=args.org, content=turns[used % len(turns)], source_type=SourceType.TURN
            )
            await services.memory.remember(request, policy)
            query = corpus.questions[10 + used % (len(corpus.questions) - 10)]
            before = len(seen.full_ms)
            began = time.perf_counter()
            await services.memory.search(
                SearchRequest(org_id=args.org, query=query, limit=SEARCH_LIMIT), policy
            )
            searches.append((time.perf_counter() - began) * 1000)
            inside += len(seen.full_ms) > before
    finally:
        gc.callbacks.remove(seen)
    out["search"] = summarize(searches)
    out["automatic_full_collections"] = {
        "count": len(seen.full_ms),
        "ms": [round(ms, 1) for ms in seen.full_ms],
        "inside_a_search": inside,
    }
    progress(f"{args.arm}: {out['automatic_full_collections']}")
    await services.memory.lane.drain()
    await services.close()
    return out


def main(argv: list[str] | None = None) -> None:
    print(json.dumps(asyncio.run(_main(_parse(argv)))))


if __name__ == "__main__":
    main()
