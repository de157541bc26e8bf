"""The restart of benchmarks.crash_import, in its own interpreter: open, search, check.

Everything is built by the composition root's factories (``benchmarks._wiring``),
so what is timed is what ``tessera serve`` with the in-process index runs after
a crash: the engine opens (and recovers its log), the index opens from the
snapshot the killed process left (or rebuilds) and catches up from the store's
change sequence, the lane picks up the chunks left pending.
"""

import argparse
import dataclasses
import json
import os
import random
import time
from typing import Any

from benchmarks._agreement import check_agreement, searchable
from benchmarks._footprint import peak_rss_mb
from benchmarks._phases import authorized
from benchmarks._stats import progress
from benchmarks._wiring import make_embedder, make_index, make_services, make_store, owner_key

__all__ = ["restart"]

_PAGE = 1000
_OLD_SAMPLE = 200
_IMPORTED_SAMPLE = 500


async def _imported_sources(store: Any, org: str, after: int) -> list[str]:
    """Sources whose latest change came after the position taken before the import."""
    found: list[str] = []
    while True:
        page = await store.changed_sources(org, after, _PAGE)
        found.extend(source for _, source in page.changes)
        if len(page.changes) < _PAGE:
            return found
        after = page.changes[-1][0]


async def restart(args: argparse.Namespace) -> dict[str, Any]:
    from application.memory.commands import SearchRequest
    from domain.policy import Surface

    embedder = make_embedder()
    await embedder.embed(["warm the model up"])  # model load is not the restart
    url = f"surrealkv://{args.work / 'db'}"
    began = time.perf_counter()
    store = make_store(url, native_search=False)  # as serve with the in-process index
    await store.open()  # type: ignore[attr-defined]
    engine_open = time.perf_counter() - began
    pending_at_restart = len(await store.pending_embeddings(args.org, 1_000_000))
    counted = time.perf_counter()
    index = make_index("inprocess", store)
    services = make_services(store, index, embedder, args.org)
    await services.open(Surface.API)
    opened = time.perf_counter()
    key = await owner_key(services)
    request = SearchRequest(org_id=args.org, query=args.query, limit=10)
    found = await services.memory.search(request, await authorized(services, key))
    searched = time.perf_counter()
    correct = any(hit.text and hit.text in args.query for hit in found.results)
    keeper = services.memory._readiness.snapshots
    out: dict[str, Any] = {
        "engine_open_s": round(engine_open, 2),
        "pending_chunks_at_restart": pending_at_restart,
        "index_open_s": round(opened - counted, 2),
        "snapshot_outcome": None if keeper is None else str(keeper.outcomes.get(args.org)),
        "caught_up_sources": None if keeper is None else keeper.caught_up.get(args.org),
        "first_search_ms": round((searched - opened) * 1000, 1),
        "first_search_correct": correct,
        "to_first_correct_search_s": round(engine_open + (searched - counted), 2)
        if correct
        else None,
    }
    progress(f"restart: {json.dumps(out)}; embedding what was left pending")
    try:
        await services.memory.lane.drain()  # the chunks the killed import left pending
        out["pending_embedded_s"] = round(time.perf_counter() - searched, 1)
        await services.memory.lane.stop()  # nothing moves while the two sides are read
        checked = time.perf_counter()
        progress(f"pending embedded in {out['pending_embedded_s']} s; checking the index")
        agreement = await check_agreement(store, index, args.org)
        out["agreement"] = {**dataclasses.asdict(agreement), "agrees": agreement.agrees}
        imported = await _imported_sources(store, args.org, args.after)
        entries = await store.index_entries_of(args.org, imported)
        old = await store.scan_index_entries(args.org, None, _OLD_SAMPLE)
        out["imported"] = {"sources": len(imported), "chunks": len(entries)}
        # every imported chunk is checked by id above; by its words and vector, a sample
        sample = random.Random(7).sample(entries, min(len(entries), _IMPORTED_SAMPLE))
        sampled = await searchable(index, args.org, sample)
        out["imported_searchable"] = dataclasses.asdict(sampled)
        out["older_searchable"] = dataclasses.asdict(await searchable(index, args.org, old))
        out["check_s"] = round(time.perf_counter() - checked, 1)
        out["peak_rss_mb"] = peak_rss_mb()
        out["load_avg"] = os.getloadavg()
    finally:
        await services.close()
    return out
