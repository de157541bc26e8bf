"""What conversation-aware recall costs at ~10k turns: ingest, index memory, search latency.

    python -m benchmarks.conversations.cost [--copies 8] [--fixture PATH] [--off SPEC] [--on SPEC]

One process, one embedded SurrealDB (``mem://``) and in-process index; each
arm (``--conversation off``, as before; ``on``) gets its own organisation
holding ``--copies`` copies of every fixture conversation (the dev split has
1,297 turns, so 8 copies are ~10k turns in one organisation). Ingest runs
through ``MemoryService.remember`` with document vectors from the disk cache
(the embedder is the same in both arms and would only blur the ratio),
the arms' conversations interleaved so neither writes into a fuller store;
index memory is the deep size of each organisation's in-process index
(numpy arrays, postings, texts). Then every fixture question is asked in both
arms, alternating which goes first, with live query embeddings (a fresh
query cache per arm), and p50/p95 are taken over all of them. Prints one
JSON object with the ratios on the last line.
"""

import argparse
import asyncio
import json
import sys
import time
import uuid
from collections import deque
from datetime import datetime
from pathlib import Path
from typing import Any

from application.memory.commands import SearchRequest
from application.memory.service import MemoryService
from application.retrieval.pipeline import RetrievalMode
from benchmarks._embed_cache import CachedEmbedder, DiskEmbeddingCache
from benchmarks._lme_run import owner_context
from benchmarks._stats import code_version, machine_info, summarize
from benchmarks._wiring import make_embedder, make_index, make_store
from benchmarks.conversations._cache import CACHE_DIR
from benchmarks.conversations._options import parse_conversation
from benchmarks.conversations._run import ingest
from benchmarks.conversations.generate import FIXTURE

__all__ = ["main"]



def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.conversations.cost", description=__doc__)
    p.add_argument("--fixture", type=Path, default=FIXTURE)
    p.add_argument("--copies", type=int, default=8, help="copies of each conversation per arm")
    p.add_argument("--cache-dir", type=Path, default=CACHE_DIR)
    p.add_argument("--on", default="on", help="the 'on' arm: on, or on with NAME=VALUE overrides")
    p.add_argument(
        "--off",
        default="off",
        help="the other arm: off (as before conversation-aware recall), or on with overrides",
    )
    return p.parse_args(argv)


def deep_bytes(root: object) -> int:
    """Bytes held by an object graph: containers, objects' attributes, numpy buffers."""
    import numpy as np

    seen: set[int] = set()
    total = 0
    todo: deque[object] = deque([root])
    while todo:
        obj = todo.popleft()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, np.ndarray):
            total += obj.nbytes + sys.getsizeof(obj) - (obj.nbytes if obj.base is None else 0)
            continue
        total += sys.getsizeof(obj)
        if isinstance(obj, dict):
            todo.extend(obj.keys())
            todo.extend(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            todo.extend(obj)
        elif hasattr(obj, "__struct_fields__"):
            todo.extend(getattr(obj, f) for f in obj.__struct_fields__)
        elif hasattr(obj, "__dict__"):
            todo.append(vars(obj))
        elif hasattr(obj, "__slots__"):
            todo.extend(getattr(obj, a) for a in obj.__slots__ if hasattr(obj, a))
    return total


async def _fill(
    writers: dict[str, MemoryService], orgs: dict[str, str], fixture: dict[str, Any], copies: int
) -> dict[str, dict[str, float]]:
    spent = dict.fromkeys(writers, 0.0)
    turns = 0
    for copy in range(copies):
        for n, conversation in enumerate(fixture["conversations"]):
            arms = list(writers) if (copy + n) % 2 == 0 else list(reversed(writers))
            for arm in arms:
                began = time.perf_counter()
                await ingest(writers[arm], orgs[arm], conversation)
                spent[arm] += time.perf_counter() - began
            turns += sum(len(s["turns"]) for s in conversation["sessions"])
    return {
        arm: {"turns": turns, "seconds": round(t, 2), "turns_per_s": round(turns / t, 1)}
        for arm, t in spent.items()
    }


async def _run(args: argparse.Namespace) -> dict[str, Any]:
    from entrypoints.container import make_service

    fixture = json.loads(args.fixture.read_text(encoding="utf-8"))
    arms = {"off": parse_conversation(args.off), "on": parse_conversation(args.on)}
    model = make_embedder()
    cached = CachedEmbedder(model, DiskEmbeddingCache(args.cache_dir, model.space))
    store = make_store("mem://")
    index = make_index("inprocess", store)
    orgs = {arm: f"cost-{arm}-{uuid.uuid4().hex[:6]}" for arm in arms}
    writers = {
        arm: make_service(store, index, cached, RetrievalMode.RANKED, conversation=c)
        for arm, c in arms.items()
    }
    searchers = {
        arm: make_service(store, index, model, RetrievalMode.RANKED, conversation=c)
        for arm, c in arms.items()
    }
    try:
        print(f"ingest x{args.copies} per arm", file=sys.stderr, flush=True)
        fill = await _fill(writers, orgs, fixture, args.copies)
        for arm in arms:
            org_index = index._orgs[orgs[arm]]  # type: ignore[attr-defined]
            fill[arm]["index_mib"] = round(deep_bytes(org_index) / 2**20, 1)
        print("search", file=sys.stderr, flush=True)
        samples: dict[str, list[float]] = {arm: [] for arm in arms}
        # CPU time of the process too: on shared cores the wall clock mostly measures others
        cpu: dict[str, list[float]] = {arm: [] for arm in arms}
        questions = fixture["questions"]
        for n, q in enumerate(questions):
            order = list(arms) if n % 2 == 0 else list(reversed(arms))
            for arm in order:
                request = SearchRequest(org_id=orgs[arm], query=q["question"], limit=10,
                                        as_of=datetime.fromisoformat(q["asked_at"]))
                began, began_cpu = time.perf_counter(), time.process_time()
                await searchers[arm].search(request, owner_context(orgs[arm]))
                samples[arm].append((time.perf_counter() - began) * 1000)
                cpu[arm].append((time.process_time() - began_cpu) * 1000)
    finally:
        await store.close()
    search = {arm: summarize(s) for arm, s in samples.items()}
    search_cpu = {arm: summarize(s) for arm, s in cpu.items()}

    def ratio(a: float | None, b: float | None) -> float | None:
        return None if not a or not b else round(a / b, 3)

    return {
        "turns_per_arm": fill["on"]["turns"],
        "ingest": fill,
        "search_ms": search,
        "search_cpu_ms": search_cpu,
        "ratios_on_over_off": {
            "search_p95": ratio(search["on"].get("p95_ms"), search["off"].get("p95_ms")),
            "search_p50": ratio(search["on"].get("p50_ms"), search["off"].get("p50_ms")),
            "search_cpu_p95": ratio(
                search_cpu["on"].get("p95_ms"), search_cpu["off"].get("p95_ms")
            ),
            "search_cpu_mean": ratio(
                search_cpu["on"].get("mean_ms"), search_cpu["off"].get("mean_ms")
            ),
            "ingest_throughput": ratio(fill["on"]["turns_per_s"], fill["off"]["turns_per_s"]),
            "index_memory": ratio(fill["on"]["index_mib"], fill["off"]["index_mib"]),
        },
        "on": args.on,
        "code": code_version(),
        "machine": machine_info(),
    }


def main(argv: list[str] | None = None) -> None:
    result = asyncio.run(_run(_parse(argv)))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
