"""Full garbage collections inside searches, with the started service's objects frozen and not.

    python -m benchmarks.gc_pauses --data-dir /path/copy-of-filled [--pairs 150]

CPython's cyclic collector walks every tracked container in a full
collection. A service taking writes runs one every few hundred requests, on
the event loop, inside whichever request it falls in. This opens a filled
store as ``tessera serve`` does, then runs two arms one after the other, each
of ``--pairs`` remembers (one LongMemEval turn) each followed by a timed
search:

- ``walked``: the objects built while starting are walked by every full
  collection (the process as it was);
- ``frozen``: after ``entrypoints.startup_heap.freeze_startup_objects``, what
  ``tessera serve`` now calls before it listens.

For each arm: the tracked objects and a forced full collection's duration
(median of three: what an automatic one costs), then the searches' wall
p50/p95/p99/max, and every automatic collection of the oldest generation that
ran during the pairs (count, durations, how many fell inside a search).

It writes to the store: run it on a copy, a fresh one each run. Prints one
JSON object.
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
    p.add_argument("--pairs", type=int, default=150, help="remember + search pairs per arm")
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
    from application.commands import RememberRequest, SearchRequest
    from benchmarks._phases import SEARCH_LIMIT, authorized, time_open
    from benchmarks._wiring import make_embedder, make_index, make_services, make_store, owner_key
    from domain.scopes import SourceType
    from domain.visible_text import has_visible_text
    from entrypoints.startup_heap import freeze_startup_objects

    corpus = load_corpus(args.data)
    turns = [t for t in corpus.turns if has_visible_text(t)]
    store = make_store(f"surrealkv://{args.data_dir / 'db'}", native_search=False)
    index = make_index("inprocess", store)
    services = make_services(store, index, make_embedder(), args.org)
    open_s = await time_open(services)
    gc.unfreeze()  # the walked arm: the process as it was before servers froze their start
    policy = await authorized(services, await owner_key(services))
    for question in corpus.questions[:10]:  # warm: the query model, the filter caches
        await services.memory.search(
            SearchRequest(org_id=args.org, query=question, limit=SEARCH_LIMIT), policy
        )
    out: dict[str, Any] = {
        "benchmark": "gc_pauses",
        "machine": machine_info(),
        "code": code_version(),
        "open_s": round(open_s, 1),
        "rows_at_open": index._orgs[args.org].size,  # type: ignore[attr-defined]
        "arms": {},
    }
    used = 0
    for arm in ("walked", "frozen"):
        if arm == "frozen":
            freeze_startup_objects()
        figures: dict[str, Any] = {
            "tracked_objects": len(gc.get_objects()),
            "frozen_objects": gc.get_freeze_count(),
            "forced_full_collection_ms": _forced_full_ms(),
        }
        seen = _Collections()
        searches: list[float] = []
        inside = 0
        gc.callbacks.append(seen)
        try:
            for _ in range(args.pairs):
                request = RememberRequest(
                    org_id=args.org, content=turns[used % len(turns)], source_type=SourceType.TURN
                )
                await services.memory.remember(request, policy)
                query = corpus.questions[10 + used % (len(corpus.questions) - 10)]
                used += 1
                before = len(seen.full_ms)
                began = time.perf_counter()
                await services.memory.search(
                    SearchRequest(org_id=args.org, query=query, limit=SEARCH_LIMIT), policy
                )
                searches.append((time.perf_counter() - began) * 1000)
                inside += len(seen.full_ms) > before
        finally:
            gc.callbacks.remove(seen)
        figures["search"] = summarize(searches)
        figures["automatic_full_collections"] = {
            "count": len(seen.full_ms),
            "ms": [round(ms, 1) for ms in seen.full_ms],
            "inside_a_search": inside,
        }
        progress(f"{arm}: {figures}")
        out["arms"][arm] = figures
    await services.memory.lane.drain()
    await services.close()
    gc.unfreeze()
    return out


def main(argv: list[str] | None = None) -> None:
    print(json.dumps(asyncio.run(_main(_parse(argv)))))


if __name__ == "__main__":
    main()
