"""Latency benchmark: remember and search through MemoryService on embedded SurrealDB.

    python -m benchmarks.latency --chunks 10000 --index both

Fills a fresh surrealkv store with N chunks of real LongMemEval turns, then
for each index reopens the store, times the warm-up (``service.open``),
Q distinct real questions through ``search`` and R unseen real turns through
``remember``, each end to end with the default ONNX embedder. Progress goes
to stderr; the figures are one JSON object on the last line of stdout.
"""

import argparse
import asyncio
import json
import os
import random
import shutil
import tempfile
import time
from itertools import chain
from pathlib import Path

from benchmarks._data import DATA_HELP, Corpus, load_corpus
from benchmarks._fill import FillStalledError
from benchmarks._fill_phase import FillConfig, fill_store
from benchmarks._footprint import dir_bytes, peak_rss_mb
from benchmarks._run import IndexPlan, run_index
from benchmarks._stats import code_version, machine_info, progress
from benchmarks._variation import vary_turns
from benchmarks._wiring import INDEX_NAMES, make_embedder, make_store, native_search_for
from domain.chunking import split_into_chunks
from domain.hashing import content_hash

__all__ = ["main"]

OUT_DIR = Path(__file__).resolve().parent / "out"
_MIXED_PAIRS = 45
#: half time remember-to-vector-searchable, half the write/lane breakdown
_BREAKDOWN_REMEMBERS = 60


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.latency", description=__doc__)
    p.add_argument("--chunks", type=int, required=True, help="chunks in the store before timing")
    p.add_argument("--index", choices=[*INDEX_NAMES, "both"], default="inprocess")
    p.add_argument("--queries", type=int, default=200, help="timed searches (distinct questions)")
    p.add_argument("--remembers", type=int, default=200, help="timed remembers (unseen turns)")
    p.add_argument("--data-dir", type=Path, help="store directory (default: a fresh temp dir)")
    p.add_argument("--data", type=Path, help=DATA_HELP)
    p.add_argument(
        "--embed-real",
        type=int,
        default=3000,
        help="fill chunks that get real vectors; the rest get perturbed copies",
    )
    p.add_argument("--sigma", type=float, default=0.02, help="per-dimension noise of perturbation")
    p.add_argument("--fill-concurrency", type=int, default=8, help="sources written concurrently")
    p.add_argument(
        "--reopen-every",
        type=int,
        default=0,
        help="close and reopen the store after this many filled chunks (0: never)",
    )
    p.add_argument("--warmups", type=int, default=5, help="untimed searches before timing")
    p.add_argument(
        "--settle",
        type=float,
        default=0.0,
        help="seconds to wait after the warm-ups (background index builds they started land)",
    )
    p.add_argument(
        "--profile",
        type=int,
        default=0,
        help="after the timed searches, this many more distinct questions under cProfile: "
        "per-search stage times and top functions to stderr and the JSON",
    )
    p.add_argument(
        "--profile-interleaved",
        type=int,
        default=0,
        help="after the interleaved phase, this many more (remember, distinct question) pairs, "
        "each search under cProfile: what a search rebuilds after a write",
    )
    p.add_argument("--native-queries", type=int, help="cap timed searches for the surreal index")
    p.add_argument("--breakdown-queries", type=int, default=50)
    p.add_argument("--org", default="bench")
    p.add_argument("--seed", type=int, default=7, help="shuffles the turns before use")
    return p.parse_args(argv)


async def _unseen(
    url: str, org: str, pool: list[str], needed: int, native_search: bool
) -> list[str]:
    """Turns none of whose chunks are in the store's embedding cache (matters on a reused store).

    The reserved turns first; once earlier runs on the same store have remembered them
    all, varied turns made from them (``benchmarks._variation``: their partners are
    reserved turns too, so no fill text comes back), round after round."""
    embedder = make_embedder()
    store = make_store(url, native_search=native_search)
    try:
        await store.prepare(org, embedder.space)
        out: list[str] = []
        for turn in chain(pool, vary_turns(pool)):
            hashes = [content_hash(s.text) for s in split_into_chunks(turn)]
            if not await store.cached_embeddings(org, embedder.space.model, hashes):
                out.append(turn)
            if len(out) == needed:
                return out
    finally:
        await store.close()
    raise ValueError(f"only {len(out)} unseen turns left for remember; {needed} needed")


def _plans(args: argparse.Namespace, corpus: Corpus, url: str, texts: list[str]) -> list[IndexPlan]:
    names = list(INDEX_NAMES) if args.index == "both" else [args.index]
    qs = corpus.questions
    if args.warmups + args.queries > len(qs):
        raise ValueError(f"only {len(qs)} distinct questions: lower --queries or --warmups")
    warmups, queries = qs[: args.warmups], qs[args.warmups : args.warmups + args.queries]
    mixed = qs[args.warmups + args.queries :][:_MIXED_PAIRS]
    # after the mixed ones: questions no other phase asks (their candidates uncached)
    profiled = tuple(qs[args.warmups + args.queries + _MIXED_PAIRS :][: args.profile])
    if len(profiled) < args.profile:
        raise ValueError(f"only {len(profiled)} questions left to profile: lower --profile")
    after = args.warmups + args.queries + _MIXED_PAIRS + args.profile
    profiled_mixed = qs[after:][: args.profile_interleaved]
    if len(profiled_mixed) < args.profile_interleaved:
        raise ValueError(f"only {len(profiled_mixed)} questions left: lower --profile-interleaved")
    per = args.remembers + len(mixed) + _BREAKDOWN_REMEMBERS + args.profile_interleaved
    plans = []
    for i, name in enumerate(names):
        mine = texts[i * per : (i + 1) * per]
        capped, mixed_q = queries, mixed
        if name == "surreal" and args.native_queries is not None:
            # a slow native search caps every search-bearing phase of that index
            capped, mixed_q = queries[: args.native_queries], mixed[: args.native_queries]
        plans.append(
            IndexPlan(
                name=name,
                url=url,
                org_id=args.org,
                warmups=warmups,
                queries=capped,
                mixed_queries=mixed_q,
                remember_texts=mine[: args.remembers],
                mixed_texts=mine[args.remembers : args.remembers + len(mixed)],
                breakdown_texts=mine[args.remembers + len(mixed) : per - args.profile_interleaved],
                breakdown_queries=min(args.breakdown_queries, len(capped)),
                native_search=native_search_for(args.index),
                settle_s=args.settle,
                profile_queries=profiled,
                profile_pairs=tuple(
                    zip(mine[per - args.profile_interleaved : per], profiled_mixed, strict=True)
                ),
            )
        )
    return plans


async def _main(args: argparse.Namespace) -> dict[str, object]:
    code = code_version()  # before the product modules are used
    corpus = load_corpus(args.data)
    turns = list(corpus.turns)
    random.Random(args.seed).shuffle(turns)  # fill and remember texts: a fair sample
    names = list(INDEX_NAMES) if args.index == "both" else [args.index]
    mixed = min(_MIXED_PAIRS, max(len(corpus.questions) - args.warmups - args.queries, 0))
    needed = (args.remembers + mixed + _BREAKDOWN_REMEMBERS + args.profile_interleaved) * len(names)
    reserve = needed * 2  # unseen remember texts come from the end of the corpus
    fill_turns, pool = turns[:-reserve], turns[-reserve:]
    temp = args.data_dir is None
    data_dir = Path(tempfile.mkdtemp(prefix="tessera-bench-")) if temp else args.data_dir
    url = f"surrealkv://{data_dir / 'db'}"
    progress(f"store {url}; corpus {len(corpus.turns)} turns, {len(corpus.questions)} questions")
    try:
        began = time.perf_counter()
        fill = await fill_store(
            FillConfig(
                url=url,
                org_id=args.org,
                chunks=args.chunks,
                embed_real=args.embed_real,
                index=INDEX_NAMES[0] if args.index == "both" else args.index,
                sigma=args.sigma,
                concurrency=args.fill_concurrency,
                reopen_every=args.reopen_every,
                vector_dir=OUT_DIR / "vectors",
                native_search=native_search_for(args.index),
            ),
            fill_turns,
        )
        fill["phase_seconds"] = round(time.perf_counter() - began, 1)
        texts = await _unseen(url, args.org, pool, needed, native_search_for(args.index))
        plans = _plans(args, corpus, url, texts)
        results = [await run_index(plan, make_embedder()) for plan in plans]
        # after the services closed: the snapshotting index wrote its snapshot beside the store
        footprint = {
            "peak_rss_mb": peak_rss_mb(),
            "store_bytes": dir_bytes(data_dir / "db"),
            "snapshot_bytes": dir_bytes(data_dir / "db.index"),
        }
    finally:
        if temp:
            shutil.rmtree(data_dir, ignore_errors=True)
    head = results[0]
    out: dict[str, object] = {
        "chunks": args.chunks,
        "index": args.index,
        "headline_index": head["index"],
        **{
            k: head[k]
            for k in (
                "remember_p50_ms",
                "remember_p95_ms",
                "remember_to_vector_searchable",
                "search_p50_ms",
                "search_p95_ms",
                "search_p99_ms",
                "search_mean_ms",
                "warmup_open_s",
            )
        },
        "search_cpu_ms": head.get("search_cpu_ms"),
        "search_cpu_ms_by_thread": head.get("search_cpu_ms_by_thread"),
        "remember_cpu_ms": head.get("remember_cpu_ms"),
        "bulk_chunks_per_s": fill.get("bulk_chunks_per_s"),
        **footprint,
        "peak_rss_note": "VmHWM of the whole benchmark process: fill (if any), corpus, "
        "index open, every phase",
        "fill": fill,
        "store": "surrealkv (embedded), " + ("fresh temp dir" if temp else str(data_dir)),
        "embedder": "OnnxEmbedder (all-MiniLM-L6-v2 int8), default settings",
        "query_vector_cache": "fresh MemoryService per index and distinct questions: "
        "every timed search embeds its query",
        "native_queries_cap": args.native_queries,
        "native_search_indexes": native_search_for(args.index),
        "machine": machine_info(),
        "code": code,
    }
    if len(results) > 1:
        out["per_index"] = {str(r["index"]): r for r in results}
    else:
        out["detail"] = head
    return out


def main(argv: list[str] | None = None) -> None:
    args = _parse(argv)
    try:
        result = asyncio.run(_main(args))
    except FillStalledError as exc:
        # a hung embedded engine may never let the process shut down cleanly
        progress(f"FILL STALLED: {exc}")
        print(
            json.dumps({"chunks": args.chunks, "index": args.index, "error": str(exc)}), flush=True
        )
        os._exit(3)
    print(json.dumps(result, separators=(",", ":")))


if __name__ == "__main__":
    main()
