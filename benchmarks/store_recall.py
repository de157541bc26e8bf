"""Recall@10 of the vector leg as a filled store's index serves it, against its exact scan.

    python -m benchmarks.store_recall --data-dir /path/filled [--queries 200] [--org bench]

``benchmarks.ann_recall`` measures the vector leg on real vectors, but the
embedding cache holds ~186k of them; a 1M store of the scale benchmarks holds
3,000 real MiniLM vectors and perturbed copies of them. This opens such a
store's snapshotting in-process index as ``tessera serve`` would (from its
snapshot when there is one), embeds the LongMemEval questions as queries
(real queries, not rows of the index), and compares each query's top 10 from
the index's own vector leg (the graph past its threshold) with the exact
cosine scan over the same rows (every row open to readers with a vector).
What it says is bounded by the data: near-duplicate clusters of perturbed
vectors, not the real distribution (a graph walks them differently).

Where the index misses, it says why: each exact top-10 row it did not return
(and no row as near took its place) is a miss in a list the query read (the
codes' precision) or in a list it did not read (the lists' training: the row
sits far from its list's centroid). ``--split-at ROW`` gives recall apart for
rows numbered below ROW and from it: the scale store's rows are its fill
first, then what later benchmark runs remembered (real vectors among the
fill's perturbed clusters). Prints one JSON object. Opens the store (the
engine may write its recovery): run it on a copy.
"""

import argparse
import asyncio
import json
import os
import time
import weakref
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks._data import DATA_HELP, load_corpus
from benchmarks._footprint import peak_rss_mb
from benchmarks._stats import code_version, machine_info, progress, summarize

__all__ = ["main"]


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.store_recall", description=__doc__)
    p.add_argument("--data-dir", type=Path, required=True, help="holds db/ (and db.index/)")
    p.add_argument("--org", default="bench")
    p.add_argument("--queries", type=int, default=200, help="LongMemEval questions as queries")
    p.add_argument("--data", type=Path, help=DATA_HELP)
    p.add_argument(
        "--split-at", type=int, help="recall apart for exact top-10 rows below / from this row"
    )
    return p.parse_args(argv)


def overlap_at(got: list[str], want: list[str], k: int) -> float:
    """Share of the exact top ``k`` the approximate top ``k`` found."""
    truth = want[:k]
    return len(set(got[:k]) & set(truth)) / max(len(truth), 1)


def as_good_at(found: list[float], exact: list[float], k: int, slack: float = 1e-4) -> float:
    """Share of the approximate top ``k`` (their exact cosines) at least as near as the
    exact ``k``-th: on near-duplicate rows the graph may return other, equally near ones."""
    if not exact:
        return 1.0
    kth = sorted(exact, reverse=True)[:k][-1]
    return sum(1 for s in found[:k] if s >= kth - slack) / min(k, len(exact))


def lists_read(centroids: np.ndarray, query: np.ndarray, probes: int) -> np.ndarray:
    """The lists an open search reads: the ``probes`` centroids nearest the query."""
    return np.argsort(-(centroids @ query), kind="stable")[:probes]


def shares(hits: list[int], totals: list[int]) -> list[float | None]:
    """Each part's share found (None where a part had no rows)."""
    return [round(h / t, 4) if t else None for h, t in zip(hits, totals, strict=True)]


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    from application.ports.records import CandidateFilter
    from benchmarks._wiring import make_embedder, make_index, make_service, make_store

    code = code_version()
    embedder = make_embedder()
    questions = load_corpus(args.data).questions[: args.queries]
    vectors = await embedder.embed(questions)
    store = make_store(f"surrealkv://{args.data_dir / 'db'}", native_search=False)
    index = make_index("inprocess", store)
    service = make_service(store, index, embedder)
    began = time.perf_counter()
    await service.open(args.org)
    await service.lane.stop()
    open_s = time.perf_counter() - began
    held = index._orgs[args.org]  # type: ignore[attr-defined]
    every = CandidateFilter()
    live = held.live(every)
    graph = held.graph is not None and held.graph.usable
    progress(f"open {open_s:.1f} s, {held.size} rows, graph {'in use' if graph else 'none'}")
    recall: list[float] = []
    as_good: list[float] = []
    leg_ms: list[float] = []
    exact_ms: list[float] = []
    # the misses' diagnosis (an open search on an inverted file only)
    native = held.graph.native if graph else None
    centroids = None if native is None else native.quantizer.reconstruct_n(0, native.nlist)
    probes = 0
    if native is not None:  # the mask an open search reads with (``VectorGraph.nearest``)
        admitted = held.graph._admitted(live & held.has_vector[: held.size])
        probes = held.graph.lists_read(int(np.count_nonzero(admitted)) / len(admitted))
    # a retrain landing mid-run would switch the index measured (at a search): said below
    # (a weak reference: holding the old index here would keep its lists resident)
    retraining = held.retrain is not None
    measured = None if held.graph is None else weakref.ref(held.graph)
    missed_read = missed_unread = 0
    missed_fit: list[float] = []
    found_fit: list[float] = []
    part_hits, part_rows = [0, 0], [0, 0]
    try:
        for vector in vectors:
            started = time.process_time()
            hits = await index.vector(args.org, vector, 10, every)
            leg_ms.append((time.process_time() - started) * 1000)
            started = time.process_time()
            rows, sims = held.similarities(vector, live)  # no ``where``: the exact scan
            exact = held.top(rows, sims, 10)
            exact_ms.append((time.process_time() - started) * 1000)
            recall.append(overlap_at([h.item_id for h in hits], [h.item_id for h in exact], 10))
            query = np.asarray(vector, dtype=np.float32)
            query /= max(float(np.linalg.norm(query)), 1e-12)
            found = [float(held.vectors[held.row_of[h.item_id]] @ query) for h in hits]
            as_good.append(as_good_at(found, [h.score for h in exact], 10))
            got = {h.item_id for h in hits}
            floor = min(found[:10], default=1.0)
            read = None if centroids is None else set(lists_read(centroids, query, probes).tolist())
            for h in exact:
                row = held.row_of[h.item_id]
                if args.split_at is not None:
                    part = int(row >= args.split_at)
                    part_rows[part] += 1
                    part_hits[part] += h.item_id in got
                if native is None or centroids is None or read is None:
                    continue  # the exact scan serves: no lists to diagnose
                if row >= held.graph.labelled:
                    continue  # in the exactly scanned tail
                listed = int(native.direct_map.get(row)) >> 32  # (list, offset): the list
                fit = float(centroids[listed] @ held.vectors[row])
                if h.item_id in got:
                    found_fit.append(fit)
                elif h.score > floor + 1e-4:  # no row as near took its place: a miss
                    missed_fit.append(fit)
                    if listed in read:
                        missed_read += 1
                    else:
                        missed_unread += 1
    finally:
        await store.close()
    diagnosis: dict[str, Any] = {"lists_read": probes}
    if native is not None:
        diagnosis |= {
            "misses_in_lists_read": missed_read,
            "misses_in_lists_not_read": missed_unread,
            # a row far from its list's centroid is found only if the query reads that list
            "centroid_cosine_p50_of_missed": round(float(np.median(missed_fit)), 3)
            if missed_fit
            else None,
            "centroid_cosine_p50_of_found": round(float(np.median(found_fit)), 3)
            if found_fit
            else None,
        }
    if args.split_at is not None:
        diagnosis |= {
            "split_at_row": args.split_at,
            "exact_rows_below_from": part_rows,
            "recall_below_from": shares(part_hits, part_rows),
        }
    return {
        "rows": held.size,
        "rows_with_vector": int(np.count_nonzero(live & held.has_vector[: held.size])),
        "vector_leg": "inverted file" if graph else "exact scan",
        "graph_restored": bool(held.graph_restored),
        # the restored index measured, not the finer one a background retrain is making
        "retrain_running_at_start": retraining,
        "index_replaced_during_run": measured is not None and held.graph is not measured(),
        "queries": len(vectors),
        "recall_at_10": round(float(np.mean(recall)), 4),
        "recall_at_10_min": round(float(np.min(recall)), 4),
        # near-duplicate rows tie: a different row as near as the exact 10th is no miss
        "as_good_at_10": round(float(np.mean(as_good)), 4),
        "as_good_at_10_min": round(float(np.min(as_good)), 4),
        "vector_leg_cpu_ms": summarize(leg_ms),
        "exact_scan_cpu_ms": summarize(exact_ms),
        "misses": diagnosis,
        "index_open_s": round(open_s, 1),
        "peak_rss_mb": peak_rss_mb(),
        "vectors_note": "the store's vectors: real MiniLM ones and perturbed copies "
        "(benchmarks._vectors); queries: LongMemEval questions embedded now",
        "load_avg": os.getloadavg(),
        "machine": machine_info(),
        "code": code,
    }


def main(argv: list[str] | None = None) -> None:
    print(json.dumps(asyncio.run(_main(_parse(argv))), separators=(",", ":")))


if __name__ == "__main__":
    main()
