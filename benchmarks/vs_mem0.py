"""Tessera's ranked search against mem0 (OSS ``Memory``, dense, qdrant), side by side.

    python -m benchmarks.vs_mem0 --questions 30 [--storage memory|mem|disk|both]

Needs the ``bench`` extra (``pip install -e '.[bench]'``: mem0ai, qdrant-client).
Per question (LongMemEval, stratified order) both systems take the haystack,
search the question (30 results; sessions rank by first appearance) and are
scored with the same session-level metrics; then the question's organisation
is dropped and mem0's user's memories deleted. The two systems alternate
which goes first, question by question, so they share the machine's load.
mem0 starts each question on an empty qdrant collection unless
``--mem0-collection shared`` (see ``_mem0_arm.Mem0Arm``).

Tessera runs as ``benchmarks.longmemeval`` runs it (ranked mode, in-process
index), one service remembering and searching as a server does; mem0 adds
each turn with ``infer=False`` (``_mem0_arm``). Both get the same cached
MiniLM document vectors and compute query vectors live with the same model.
``memory``: Tessera's in-memory store against qdrant's in-memory mode;
``mem``: the embedded SurrealDB's in-memory engine (``TESSERA_DB_URL=mem://``,
what a person can run; ``memory`` is the in-process store the tests use)
against qdrant's in-memory mode;
``disk``: embedded SurrealDB on surrealkv against qdrant's local files, each
in a temporary directory, whose bytes are read after every question is
dropped (Tessera's also after ``compact()``, as ``tessera admin org drop``
runs it). Nothing goes over the network (a connect raises). Progress on
stderr; stdout is one JSON object.
"""

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from application.memory.service import MemoryService
from application.ports import MemoryStore
from application.retrieval.pipeline import RetrievalMode
from benchmarks._embed_cache import CachedEmbedder, DiskEmbeddingCache
from benchmarks._footprint import dir_bytes
from benchmarks._lme_data import DEFAULT_LME, chunk_texts, load_questions, stratified
from benchmarks._lme_metrics import aggregate
from benchmarks._lme_run import haystack, run_question
from benchmarks._mem0_arm import (
    CacheVectors,
    Mem0Arm,
    mem0_versions,
    no_network,
    require_mem0,
)
from benchmarks._stats import machine_info
from benchmarks._wiring import make_embedder, make_index, make_store, native_search_for
from benchmarks.longmemeval import SEARCH_LIMIT, _Progress, _service, _store, _warm_up
from benchmarks.longmemeval_prefill import CACHE_DIR

__all__ = ["main"]

STORAGES = ("memory", "disk")
SYSTEMS = ("tessera", "mem0")


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.vs_mem0", description=__doc__)
    p.add_argument("--data", type=Path, default=DEFAULT_LME, help="LongMemEval .json or .json.xz")
    p.add_argument("--questions", type=int, default=30, help="first N in stratified order")
    p.add_argument("--storage", choices=[*STORAGES, "mem", "both"], default="both")
    p.add_argument(
        "--mem0-collection",
        choices=["fresh", "shared"],
        default="fresh",
        help="mem0: an empty qdrant collection per question, or one for the whole run",
    )
    p.add_argument("--cache-dir", type=Path, default=CACHE_DIR, help="document vector cache")
    p.add_argument("--out", type=Path, help="also write every question's record here (JSON)")
    return p.parse_args(argv)


def _tessera_store(storage: str, directory: Path) -> MemoryStore:
    if storage == "memory":
        return _store("memory")
    if storage == "mem":
        return make_store("mem://", native_search=native_search_for("inprocess"))
    return make_store(f"surrealkv://{directory}", native_search=native_search_for("inprocess"))


def _ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 3) if a is not None and b else None


def _side(records: list[dict[str, Any]], system: str, turns: int) -> dict[str, Any]:
    summary = aggregate(records, system)
    ingest_s = sum(r["ingest_s"][system] for r in records)
    return {
        "recall_all@5": summary["recall_all@5"],
        "ndcg_any@10": summary["ndcg_any@10"],
        "recall_any@5": summary["recall_any@5"],
        "search_p50_ms": summary.get("search_p50_ms"),
        "search_p95_ms": summary.get("search_p95_ms"),
        "ingest_s": round(ingest_s, 2),
        "ingest_turns_per_s": round(turns / ingest_s, 1) if ingest_s else None,
    }


async def _compare(
    storage: str,
    items: list[dict[str, Any]],
    model: Any,
    cache: DiskEmbeddingCache,
    fresh: bool,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    cached = CachedEmbedder(model, cache)
    with tempfile.TemporaryDirectory(prefix="vs-mem0-tessera-") as where:
        directory = Path(where) / "db"
        store = _tessera_store(storage, directory)
        index = make_index("inprocess", store)
        # one service remembers and searches, as a server does (and as one mem0 ``Memory``
        # adds and searches): documents from the cached vectors, queries through the
        # model's query run, live (``CachedEmbedder.embed_queries``)
        tessera = _service(store, index, cached, RetrievalMode.RANKED)
        vectors = CacheVectors(model, cache)
        mem0 = Mem0Arm("memory" if storage == "mem" else storage, vectors, SEARCH_LIMIT, fresh)
        try:
            await _warm_up({"tessera": tessera})
            mem0.warm_up()
            vectors.misses = 0  # the warm-up's text is no haystack's
            records = await _questions(items, tessera, cached, mem0)
            sides = await _disk(store, mem0, directory) if storage == "disk" else {}
        finally:
            await tessera.close()
            mem0.close()
    turns = sum(len(t) for r in items for _, _, t in haystack(r))
    result: dict[str, Any] = {s: _side(records, s, turns) | sides.get(s, {}) for s in SYSTEMS}
    t, m = result["tessera"], result["mem0"]
    result["tessera_over_mem0"] = {
        "search_p50": _ratio(t["search_p50_ms"], m["search_p50_ms"]),
        "search_p95": _ratio(t["search_p95_ms"], m["search_p95_ms"]),
        "ingest_rate": _ratio(t["ingest_turns_per_s"], m["ingest_turns_per_s"]),
    }
    result["turns"] = turns
    result["mem0_vectors_embedded"] = vectors.misses
    return result, records


async def _disk(store: MemoryStore, mem0: Mem0Arm, directory: Path) -> dict[str, dict[str, Any]]:
    """Bytes left once every question is dropped; Tessera's again after a compaction."""
    tessera: dict[str, Any] = {"disk_bytes_after_drop": dir_bytes(directory)}
    compact = getattr(store, "compact", None)
    if compact is not None:
        await compact()
        tessera["disk_bytes_after_compact"] = dir_bytes(directory)
    return {"tessera": tessera, "mem0": {"disk_bytes_after_delete": mem0.disk_bytes()}}


async def _questions(
    items: list[dict[str, Any]],
    tessera: MemoryService,
    cached: CachedEmbedder,
    mem0: Mem0Arm,
) -> list[dict[str, Any]]:
    progress = _Progress(len(items))
    records: list[dict[str, Any]] = []
    for n, item in enumerate(items):
        await cached.prefill(chunk_texts(item))  # a cold cache's cost is neither system's
        first = SYSTEMS[n % 2]
        if first == "mem0":
            theirs = mem0.run(item)
        ours = await run_question(item, tessera, {"tessera": tessera}, cached, False, SEARCH_LIMIT)
        if first == "tessera":
            theirs = mem0.run(item)
        ours["modes"]["mem0"] = {k: theirs[k] for k in ("search_ms", "sessions", "metrics")}
        ours["ingest_s"] = {"tessera": ours["ingest_s"], "mem0": theirs["ingest_s"]}
        ours["first"] = first
        records.append(ours)
        hits = "/".join(f"{ours['modes'][s]['metrics']['recall_all@5']:.0f}" for s in SYSTEMS)
        progress.step(f"{item['question_type'][:22]:22} all@5 tessera/mem0={hits}")
    return records


async def _run(args: argparse.Namespace) -> dict[str, Any]:
    items = stratified(load_questions(args.data))[: args.questions]
    model = make_embedder()
    cache = DiskEmbeddingCache(args.cache_dir, model.space)
    load_start = os.getloadavg()
    started = time.perf_counter()
    out: dict[str, Any] = {
        "questions": len(items),
        "search_limit": SEARCH_LIMIT,
        "mem0_collection": args.mem0_collection,
    }
    details: dict[str, Any] = {}
    for storage in STORAGES if args.storage == "both" else (args.storage,):
        print(f"{storage}: {len(items)} questions", file=sys.stderr, flush=True)
        out[storage], details[storage] = await _compare(
            storage, items, model, cache, args.mem0_collection == "fresh"
        )
    out |= {
        "wall_s": round(time.perf_counter() - started, 1),
        "load_avg_start": [round(x, 2) for x in load_start],
        "load_avg_end": [round(x, 2) for x in os.getloadavg()],
        "versions": mem0_versions(),
        "machine": machine_info(),
    }
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"summary": out, "questions": details}, indent=1))
    return out


def main(argv: list[str] | None = None) -> None:
    args = _parse(argv)
    require_mem0()
    with no_network():
        summary = asyncio.run(_run(args))
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
