"""Changing the embedding model: re-embed rate, and search latency before, during and after.

    python -m benchmarks.reembed [--chunks 2000] [--serving hashing] [--target onnx]

Fills a surrealkv store (the production wiring: the in-process index with its
snapshots) with ``--chunks`` one-chunk made-up notes embedded by the serving
model, times ``--queries`` searches (the policy path), then starts
``tessera reembed`` towards the target model in the background and searches
in a loop while it builds, then times the same searches once it has switched.
Prints one JSON object: the rate (chunks/s over the build), the wall time of
the whole run (build, catch-up, switch, index rebuild) and of its switch
(from the end of the build: catch-up, transaction, index rebuild), and search p50/p95
before, during and after, with the during/before ratios (the machine is
shared, so ratios say more than absolute figures).

Embedders, all offline: ``hashing`` (the 64-dimension bag of words, no model),
``hashing32`` (the same at 32), ``onnx`` (all-MiniLM-L6-v2 int8, 384).
"""

import argparse
import asyncio
import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks._notes import made_up_notes
from benchmarks._stats import code_version, machine_info, progress, summarize

__all__ = ["main"]

_EMBEDDERS = ("hashing", "hashing32", "onnx")


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.reembed", description=__doc__)
    p.add_argument("--chunks", type=int, default=2000)
    p.add_argument("--queries", type=int, default=100, help="timed searches before and after")
    p.add_argument("--serving", choices=_EMBEDDERS, default="hashing")
    p.add_argument("--target", choices=_EMBEDDERS, default="onnx")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument(
        "--duty", type=float, help="the build's share of the time (default: the service's)"
    )
    p.add_argument("--data-dir", type=Path, help="store directory (default: a fresh temp dir)")
    return p.parse_args(argv)


def _embedder(name: str) -> Any:
    if name == "onnx":
        from adapters.embedders.onnx_minilm import OnnxEmbedder

        return OnnxEmbedder()
    from adapters.inmemory.hashing_embedder import HashingEmbedder

    return HashingEmbedder(dimension=32 if name == "hashing32" else 64)


async def _searches(services: Any, ctx: Any, queries: list[str]) -> list[float]:
    from application.memory.commands import SearchRequest

    samples = []
    for query in queries:
        began = time.perf_counter()
        await services.memory.search(SearchRequest(org_id="local", query=query, limit=10), ctx)
        samples.append((time.perf_counter() - began) * 1000)
    return samples


async def _run(args: argparse.Namespace, data_dir: Path) -> dict[str, Any]:
    from dependency_injector import providers

    from application.memory.commands import RememberRequest
    from application.operations.reembed.records import ReembedState
    from domain.policy import Surface
    from entrypoints.container import build_container
    from entrypoints.settings import load_settings

    rng = random.Random(args.seed)
    notes = made_up_notes(args.chunks, rng)
    serving, target = _embedder(args.serving), _embedder(args.target)
    await serving.embed(["warm up"])
    await target.embed(["warm up"])
    container = build_container(load_settings({"TESSERA_DATA_DIR": str(data_dir)}))
    container.embedder.override(serving)
    container.embedders.override(providers.Object({"target": target}.__getitem__))
    services = container.services()
    issued = await services.open(Surface.CLI)
    assert issued is not None, "use a fresh --data-dir"
    _, ctx = await services.session(issued.key, Surface.CLI)
    began = time.perf_counter()
    for start in range(0, len(notes), 200):
        batch = [RememberRequest(org_id="local", content=n) for n in notes[start : start + 200]]
        await services.memory.remember_many("local", batch, ctx)
    await services.memory.lane.drain()
    filled = time.perf_counter() - began
    progress(f"filled {len(notes)} notes in {filled:.1f} s")
    queries = [" ".join(n.split()[2:5]) for n in rng.sample(notes, args.queries)]
    await _searches(services, ctx, queries[:10])  # warm
    before = await _searches(services, ctx, queries)

    if args.duty is not None:
        services.reembed.duty = args.duty
    began = time.perf_counter()
    await services.reembed.start("target", None, Surface.CLI)
    during: list[float] = []
    n = 0
    while (status := services.reembed.progress()) is not None and status.state is (
        ReembedState.RUNNING
    ):
        during += await _searches(services, ctx, [queries[n % len(queries)]])
        n += 1
        await asyncio.sleep(0.005)  # a client's think time, so the build gets its turns
    built = time.perf_counter() - began
    done = await services.reembed.wait()
    wall = time.perf_counter() - began
    assert done is not None and done.state is ReembedState.DONE, done
    progress(f"re-embedded {done.done} chunks in {wall:.1f} s ({done.rate} chunks/s building)")
    after = await _searches(services, ctx, queries)
    await services.close()
    b, d, a = summarize(before), summarize(during), summarize(after)
    return {
        "benchmark": "reembed",
        "chunks": len(notes),
        "serving": serving.space.model,
        "target": target.space.model,
        "fill_seconds": round(filled, 1),
        "duty": services.reembed.duty,
        "reembed_rate_chunks_per_s": done.rate,
        "reembed_wall_chunks_per_s": round(done.done / wall, 1),
        "reembed_wall_seconds": round(wall, 2),
        "build_seconds": round(built, 2),
        "switch_seconds": round(wall - built, 2),
        "search_before": b,
        "search_during": d,
        "search_after": a,
        "during_over_before_p50": round(d["p50_ms"] / b["p50_ms"], 2) if d.get("n") else None,
        "during_over_before_p95": round(d["p95_ms"] / b["p95_ms"], 2) if d.get("n") else None,
        "machine": machine_info(),
        "code": code_version(),
    }


def main(argv: list[str] | None = None) -> None:
    args = _parse(argv)
    if args.data_dir is not None:
        print(json.dumps(asyncio.run(_run(args, args.data_dir)), indent=2))
        return
    with tempfile.TemporaryDirectory(prefix="tessera-reembed-") as tmp:
        print(json.dumps(asyncio.run(_run(args, Path(tmp))), indent=2))


if __name__ == "__main__":
    main()
