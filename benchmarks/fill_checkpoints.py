"""Fill one store for the scale table, copying it at checkpoints on the way.

    python -m benchmarks.fill_checkpoints --data-dir D --chunks 1000000 --checkpoint 100000 300000

Why: the scale table in RESULTS wants stores of 100k, 300k and 1M chunks; filling
each from nothing repeats the smaller fills. This writes the latency
benchmark's fill plan (``benchmarks.latency``: seed 7, the same turns held
back for ``--queries 100 --remembers 100``, LongMemEval turns then varied
turns, ``--embed-real`` real vectors and perturbed copies) once, through the
one write path with the in-process index, the store opened as ``tessera
serve`` opens it for that index (no SurrealDB search indexes). Every
``step`` chunks (the smallest checkpoint) the store is closed and reopened;
at each checkpoint its directory is copied to ``D-<N/1000>k`` first. A copy
or the final store is then timed with ``benchmarks.latency --data-dir`` (the
fill is skipped on a filled store: copy it first, a latency run writes). The
store and every copy carry the index's snapshot, so their first open is a
snapshot open, not a rebuild.
Prints one JSON object at the end (write seconds, rate, peak RSS).
"""

import argparse
import asyncio
import json
import random
import resource
import shutil
import time
from pathlib import Path
from typing import TYPE_CHECKING

from benchmarks._data import DATA_HELP, load_corpus
from benchmarks._stats import progress

if TYPE_CHECKING:
    from application.ports import MemoryStore, RetrievalIndex
    from application.ports.records import EmbeddingSpace

__all__ = ["main"]

_ORG = "bench"
_SEED = 7
#: the latency benchmark's held-back turns for --queries 100 --remembers 100
#: ((100 remembers + 45 interleaved + 60 breakdown) x 2)
_RESERVE = (100 + 45 + 60) * 2


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.fill_checkpoints", description=__doc__)
    p.add_argument("--data-dir", type=Path, required=True, help="the store's directory (new)")
    p.add_argument("--chunks", type=int, required=True)
    p.add_argument("--checkpoint", type=int, nargs="*", default=[], help="copy the store here")
    p.add_argument("--embed-real", type=int, default=3000)
    p.add_argument("--sigma", type=float, default=0.02)
    p.add_argument("--data", type=Path, help=DATA_HELP)
    args = p.parse_args(argv)
    if args.data_dir.exists():
        p.error(f"{args.data_dir} exists: the fill writes a new store")
    step = min(args.checkpoint, default=0)
    if (step <= 0 and args.checkpoint) or any(c % step for c in args.checkpoint if step > 0):
        p.error("checkpoints are positive multiples of the smallest one")
    return args


def copy_name(root: Path, at: int) -> Path:
    """Where the checkpoint of ``at`` chunks goes: beside the store, ``<name>-<k>k``."""
    return root.parent / f"{root.name}-{at // 1000}k"


async def leave_snapshot(
    index: "RetrievalIndex", store: "MemoryStore", space: "EmbeddingSpace"
) -> None:
    """Write the index's snapshot beside the store, as a service's close does, so the
    first open of the store (or of a copy) maps it instead of rebuilding from every
    chunk (~11 minutes at 1M). The fill writes the store and the index together and
    alone, so the index holds every change up to the store's position now."""
    from application.indexing.snapshots import SnapshottingIndex

    if not (isinstance(index, SnapshottingIndex) and index.snapshots_enabled):
        return
    began = time.perf_counter()
    index.set_position(_ORG, await store.change_position(_ORG))
    await index.save_snapshot(_ORG, space)
    progress(f"  snapshot written in {time.perf_counter() - began:.1f} s")


async def _fill(args: argparse.Namespace) -> dict[str, object]:
    from application.ports import MemoryStore
    from benchmarks._fill import plan_fill, write_fill
    from benchmarks._vectors import VectorCache, fill_vectors
    from benchmarks._wiring import make_embedder, make_index, make_service, make_store
    from benchmarks.latency import OUT_DIR

    turns = list(load_corpus(args.data).turns)
    random.Random(_SEED).shuffle(turns)  # as benchmarks.latency does
    url = f"surrealkv://{args.data_dir / 'db'}"
    embedder = make_embedder()
    store = make_store(url, native_search=False)
    index = make_index("inprocess", store)
    service = make_service(store, index, embedder)
    await service.open(_ORG)
    await service.lane.stop()  # the fill writes its own vectors
    plan = plan_fill(turns[:-_RESERVE], args.chunks)
    cache = VectorCache(OUT_DIR / "vectors", embedder.space.model, embedder.space.dimension)
    vectors = await fill_vectors(embedder, cache, plan.chunk_texts, args.embed_real, args.sigma)
    step = min(args.checkpoint, default=0)
    reopened = 0
    copies: dict[str, float] = {}

    async def reopen(old: MemoryStore) -> MemoryStore:
        nonlocal reopened
        reopened += 1
        checkpoint = reopened * step in args.checkpoint
        if checkpoint:
            await leave_snapshot(index, old, embedder.space)
        await old.close()
        if checkpoint:
            began = time.perf_counter()
            dest = copy_name(args.data_dir, reopened * step)
            shutil.copytree(args.data_dir, dest)
            copies[str(dest)] = round(time.perf_counter() - began, 1)
            progress(f"  checkpoint {reopened * step}: copied to {dest}")
        fresh = make_store(url, native_search=False)
        await fresh.prepare(_ORG, embedder.space)
        return fresh

    timing, store = await write_fill(
        store, index, embedder, _ORG, plan, vectors.matrix, 8, reopen_every=step, reopen=reopen
    )
    await leave_snapshot(index, store, embedder.space)
    await store.close()
    return {
        "chunks": args.chunks,
        "write_seconds": round(timing.write_seconds, 1),
        "chunks_per_s": round(args.chunks / max(timing.write_seconds, 1e-9), 1),
        "reopens": timing.reopens,
        "copies_seconds": copies,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
    }


def main(argv: list[str] | None = None) -> None:
    print(json.dumps(asyncio.run(_fill(_parse(argv)))), flush=True)


if __name__ == "__main__":
    main()
