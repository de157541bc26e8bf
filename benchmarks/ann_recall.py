"""The approximate vector leg (a faiss inverted file) against the exact scan, on real
LongMemEval MiniLM vectors.

    python -m benchmarks.ann_recall --sizes 25000 50000 100000 --queries 300

Two in-process indexes over the same rows (real vectors from the embedding
cache, read-only; four spaces in turn; episodes of three rows), one with the
inverted file made where the service makes it (at ``AnnPolicy.min_rows``, or at
the whole size below it, so its lists are trained on the rows there), one exact.
Queries are real vectors held out of the index (chunks of other turns) and,
with ``--questions``, the LongMemEval questions embedded now. For each size
and reader filter (every space; three of four; one of four: the search then
reads with a bitmap refusing 75 % of the rows)
it reports recall@10 and recall@50 of the turn leg (50 is the depth the
pipeline asks for), overlap@20 of the episode leg, and p50/p95 per call of
both, in CPU milliseconds of the process (on shared cores the wall clock
mostly measures the other processes; the first call per filter, so the
filter's mask is built inside it, as in a search after a write). The
target: recall@10 >= 0.98 (benchmarks/RESULTS.md). Figures: last stdout line.
"""

import argparse
import asyncio
import dataclasses
import json
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from adapters.inprocess.ann import AnnPolicy, probes_for
from adapters.inprocess.index import InProcessIndex
from application.ports.records import CandidateFilter, IndexEntry, ScopeRef, Vector
from benchmarks._real_vectors import load_real_vectors
from benchmarks._stats import machine_info, progress, summarize
from domain.scopes import MemoryScope

__all__ = ["main"]

_SPACES = [ScopeRef(MemoryScope.TEAM, f"team-{n}") for n in range(4)]
_FILTERS = {
    "all_spaces": CandidateFilter(visible=None),
    "three_of_four": CandidateFilter(visible=frozenset(_SPACES[:3])),
    "one_of_four": CandidateFilter(visible=frozenset(_SPACES[:1])),
}
_BATCH = 5000


def _entries(matrix: np.ndarray) -> list[IndexEntry]:
    return [
        IndexEntry(
            chunk_id=f"c{n}",
            source_id=f"s{n // 3}",
            text="",
            vector=matrix[n].tolist(),
            scope=_SPACES[(n // 3) % len(_SPACES)].scope,
            scope_key=_SPACES[(n // 3) % len(_SPACES)].scope_key,
            turn_index=n % 3,
        )
        for n in range(len(matrix))
    ]


async def _build(
    entries: Sequence[IndexEntry], policy: AnnPolicy | None
) -> tuple[InProcessIndex, float]:
    index = InProcessIndex(policy)
    began = time.process_time()
    for start in range(0, len(entries), _BATCH):
        await index.add("bench", entries[start : start + _BATCH])
    return index, time.process_time() - began


def _overlap(got: list[str], want: list[str]) -> float:
    return len(set(got) & set(want)) / max(len(want), 1)


async def _compare(
    ann: InProcessIndex, exact: InProcessIndex, queries: Sequence[Vector]
) -> dict[str, object]:
    out: dict[str, object] = {}
    for name, where in _FILTERS.items():
        recall10: list[float] = []
        recall50: list[float] = []
        episodes20: list[float] = []
        ms: dict[str, list[float]] = {"ann": [], "exact": []}
        ep_ms: dict[str, list[float]] = {"ann": [], "exact": []}
        for vector in queries:
            got: dict[str, list[str]] = {}
            eps: dict[str, list[str]] = {}
            for arm, index in (("ann", ann), ("exact", exact)):
                index_of = index._orgs["bench"]
                index_of.cache.invalidate()  # time a first query per filter, not a cached one
                began = time.process_time()
                hits = await index.vector("bench", vector, 50, where)
                ms[arm].append((time.process_time() - began) * 1000)
                got[arm] = [h.item_id for h in hits]
                began = time.process_time()
                ep = await index.episode_vector("bench", vector, 20, where)
                ep_ms[arm].append((time.process_time() - began) * 1000)
                eps[arm] = [h.item_id for h in ep]
            recall10.append(_overlap(got["ann"][:10], got["exact"][:10]))
            recall50.append(_overlap(got["ann"], got["exact"]))
            episodes20.append(_overlap(eps["ann"], eps["exact"]))
        out[name] = {
            "recall_at_10": round(float(np.mean(recall10)), 4),
            "recall_at_50": round(float(np.mean(recall50)), 4),
            "episode_overlap_at_20": round(float(np.mean(episodes20)), 4),
            "turn_leg_ms": {arm: summarize(v) for arm, v in ms.items()},
            "episode_leg_ms": {arm: summarize(v) for arm, v in ep_ms.items()},
        }
        progress(f"  {name}: {json.dumps(out[name])}")
    return out


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.ann_recall", description=__doc__)
    p.add_argument("--sizes", type=int, nargs="+", default=[25000, 50000, 100000])
    p.add_argument("--queries", type=int, default=300, help="held-out real vectors as queries")
    p.add_argument("--questions", action="store_true", help="also the embedded questions")
    p.add_argument("--cache", type=Path, help="embedding-cache directory (read only)")
    p.add_argument(
        "--probes",
        type=int,
        help="lists a query reads of ~4 x sqrt(rows); fewer lists, the same share "
        "(default: AnnPolicy's; adapters.inprocess.ann.probes_for)",
    )
    return p.parse_args(argv)


async def _questions() -> list[Vector]:
    from adapters.embedders.onnx_minilm import OnnxEmbedder
    from benchmarks._data import load_corpus

    return await OnnxEmbedder().embed(load_corpus().questions)


async def _main(args: argparse.Namespace) -> dict[str, object]:
    real = load_real_vectors(args.cache)
    largest = max(args.sizes)
    if largest + args.queries > len(real):
        raise ValueError(f"the cache holds {len(real)} vectors; {largest} + {args.queries} asked")
    # held out: the last vectors of the file, never in any index
    queries: list[Vector] = [v.tolist() for v in real.matrix[len(real) - args.queries :]]
    if args.questions:
        queries += await _questions()
    runs = []
    for size in sorted(args.sizes):
        entries = _entries(real.matrix[:size])
        progress(f"{size} rows: building exact and inverted-file indexes")
        exact, exact_s = await _build(entries, None)
        made_at = min(size, AnnPolicy().min_rows)
        policy = dataclasses.replace(AnnPolicy(), min_rows=made_at)
        if args.probes is not None:
            policy = dataclasses.replace(policy, probes=args.probes)
        ann, ann_s = await _build(entries, policy)
        graph = ann._orgs["bench"].graph
        lists = 0 if graph is None else graph.lists
        progress(f"  built (CPU s): exact {exact_s:.1f}, with the inverted file {ann_s:.1f}")
        runs.append(
            {
                "rows": size,
                "build_cpu_s": {"exact": round(exact_s, 1), "with_index": round(ann_s, 1)},
                "lists": lists,
                "probes": policy.probes,
                "lists_read": probes_for(policy.probes, lists, made_at) if lists else 0,
                "trained_at_rows": made_at,
                **await _compare(ann, exact, queries),
            }
        )
    return {
        "vectors": "real all-MiniLM-L6-v2 (onnx int8) vectors of LongMemEval chunks",
        "queries": len(queries),
        "runs": runs,
        "machine": machine_info(),
    }


def main(argv: list[str] | None = None) -> None:
    print(json.dumps(asyncio.run(_main(_parse(argv))), separators=(",", ":")))


if __name__ == "__main__":
    main()
