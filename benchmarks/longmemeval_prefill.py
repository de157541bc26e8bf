"""Fill the on-disk embedding cache for LongMemEval haystacks, in stratified question order.

    python -m benchmarks.longmemeval_prefill [--data PATH] [--limit N]

The harness fills the cache by itself; this runs the slow, cold part alone
(in large batches) so it can start before anything else is ready.
"""

import argparse
import asyncio
import sys
import time
from pathlib import Path

from benchmarks._embed_cache import CachedEmbedder, DiskEmbeddingCache
from benchmarks._lme_data import DEFAULT_LME, chunk_texts, load_questions, stratified
from benchmarks._wiring import make_embedder

__all__ = ["CACHE_DIR", "main"]

CACHE_DIR = Path(__file__).resolve().parent / "out" / "embedding-cache"


async def _run(data: Path, limit: int | None) -> None:
    items = stratified(load_questions(data))[:limit]
    inner = make_embedder()
    embedder = CachedEmbedder(inner, DiskEmbeddingCache(CACHE_DIR, inner.space))
    started = time.perf_counter()
    new = 0
    for n, item in enumerate(items, start=1):
        new += await embedder.prefill(chunk_texts(item))
        elapsed = time.perf_counter() - started
        print(
            f"prefill {n}/{len(items)} new={new} rate={new / max(elapsed, 1e-9):.1f}/s "
            f"elapsed={elapsed:.0f}s",
            file=sys.stderr,
            flush=True,
        )


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.longmemeval_prefill")
    p.add_argument("--data", type=Path, default=DEFAULT_LME)
    p.add_argument("--limit", type=int)
    args = p.parse_args(argv)
    asyncio.run(_run(args.data, args.limit))


if __name__ == "__main__":
    main()
