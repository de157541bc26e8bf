"""The vector leg's index kinds on a snapshot's own vectors: recall@10 and CPU per query.

    python -m benchmarks.ivf_sweep --snapshot D/db.index/<org>/snap-... [--graph OLD/graph.faiss]
        [--lists 2048 4096] [--trained-on 50000] [--probes 32 64 128] [--queries 200]
        [--codes f16 sq8 pq96 pq192] [--rerank 400]

Why: ``benchmarks.store_recall`` measures the one index the service serves;
choosing that index (how many lists, how many read, trained on which rows)
needs the alternatives side by side on the same vectors and queries. This
reads ``vectors.npy`` of an in-process index snapshot (any size; the 1M scale
store's are near-duplicate clusters), embeds the LongMemEval questions as
queries, takes the exact top 10 by cosine, and for each list count builds a
faiss inverted file as ``adapters.inprocess.ann`` does (f16 codes, no residual,
trained on a sample of 50 rows a list from the first ``--trained-on`` rows:
the rows there when the service made it) and reads ``--probes`` lists. With
``--graph``, an HNSW graph file an earlier release wrote is searched too, at
several efSearch. No filter (the open search). Prints one JSON object.
"""

import argparse
import asyncio
import itertools
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks._data import DATA_HELP, load_corpus
from benchmarks._stats import machine_info, progress

__all__ = ["main"]


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.ivf_sweep", description=__doc__)
    p.add_argument("--snapshot", type=Path, required=True, help="a snap-... folder")
    p.add_argument("--graph", type=Path, help="an HNSW graph.faiss to compare (older release)")
    p.add_argument("--lists", type=int, nargs="+", default=[4096])
    p.add_argument("--trained-on", type=int, help="train on the first N rows (default: all)")
    p.add_argument("--probes", type=int, nargs="+", default=[32, 64, 128])
    p.add_argument("--ef", type=int, nargs="+", default=[256, 1024])
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--codes", nargs="+", default=["f16"], help="f16, sq8 or pq<M> (e.g. pq192)")
    p.add_argument("--rerank", type=int, default=400, help="pq codes: rows re-scored exactly")
    p.add_argument("--data", type=Path, help=DATA_HELP)
    return p.parse_args(argv)


def _recall(labels: np.ndarray, exact: np.ndarray) -> tuple[float, int]:
    """Mean share of each query's exact top 10 found, and the queries that found none."""
    found = [len(set(labels[i].tolist()) & set(exact[i].tolist())) / 10 for i in range(len(exact))]
    return round(float(np.mean(found)), 4), sum(1 for f in found if f == 0)


def _timed_search(
    index: Any, queries: np.ndarray, params: Any, k: int = 10
) -> tuple[np.ndarray, float]:
    """Labels of the top ``k``, and CPU-ms per query (one query at a time, as the service)."""
    out = np.empty((len(queries), k), dtype=np.int64)
    began = time.process_time()
    for i in range(len(queries)):
        _, labels = index.search(queries[i : i + 1], k, params=params)
        out[i] = labels[0]
    return out, (time.process_time() - began) * 1000 / len(queries)


def _reranked(
    vectors: np.ndarray, queries: np.ndarray, labels: np.ndarray
) -> tuple[np.ndarray, float]:
    """Each query's top 10 of its ``labels`` by exact cosine, and CPU-ms per query."""
    out = np.empty((len(queries), 10), dtype=np.int64)
    began = time.process_time()
    for i, query in enumerate(queries):
        rows = np.sort(labels[i][labels[i] >= 0])
        sims = np.asarray(vectors[rows], dtype=np.float32) @ query
        out[i] = rows[np.argsort(-sims, kind="stable")[:10]]
    return out, (time.process_time() - began) * 1000 / len(queries)


async def _queries(count: int, data: Path | None) -> np.ndarray:
    from benchmarks._wiring import make_embedder

    vectors = await make_embedder().embed(load_corpus(data).questions[:count])
    matrix = np.asarray(vectors, dtype=np.float32)
    normed: np.ndarray = matrix / np.linalg.norm(matrix, axis=1, keepdims=True)
    return normed


def _exact(vectors: np.ndarray, queries: np.ndarray, block: int = 200_000) -> np.ndarray:
    """Top 10 rows per query by cosine, over blocks of the mapped matrix."""
    best_rows = np.zeros((len(queries), 0), dtype=np.int64)
    best = np.zeros((len(queries), 0), dtype=np.float32)
    for start in range(0, len(vectors), block):
        sims = queries @ np.asarray(vectors[start : start + block], dtype=np.float32).T
        rows = np.broadcast_to(np.arange(start, start + sims.shape[1]), sims.shape)
        best = np.concatenate([best, sims], axis=1)
        best_rows = np.concatenate([best_rows, rows], axis=1)
        keep = np.argsort(-best, axis=1, kind="stable")[:, :10]
        best = np.take_along_axis(best, keep, 1)
        best_rows = np.take_along_axis(best_rows, keep, 1)
    return best_rows


def _ivf(
    faiss: Any, vectors: np.ndarray, lists: int, trained_on: int, codes: str = "f16"
) -> tuple[Any, float]:
    began = time.perf_counter()
    dim = int(vectors.shape[1])
    quantizer, metric = faiss.IndexFlatIP(dim), faiss.METRIC_INNER_PRODUCT
    if codes.startswith("pq"):
        index = faiss.IndexIVFPQFastScan(quantizer, dim, lists, int(codes[2:]), 4, metric)
        index.by_residual = True  # product codes of the whole vector lose the clusters
    else:
        kind = {"f16": faiss.ScalarQuantizer.QT_fp16, "sq8": faiss.ScalarQuantizer.QT_8bit}
        index = faiss.IndexIVFScalarQuantizer(quantizer, dim, lists, kind[codes], metric)
        index.by_residual = False
    index.cp.seed = 1234
    pick = np.random.default_rng(7).choice(trained_on, min(trained_on, 50 * lists), replace=False)
    index.train(np.ascontiguousarray(vectors[np.sort(pick)], dtype=np.float32))
    for start in range(0, len(vectors), 100_000):
        index.add(np.ascontiguousarray(vectors[start : start + 100_000], dtype=np.float32))
    return index, time.perf_counter() - began


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    import importlib

    # faiss's SWIG-made type hints do not match its Python wrappers (as in ann.py)
    faiss: Any = importlib.import_module("faiss")

    manifest = json.loads((args.snapshot / "manifest.json").read_text())
    rows = int(manifest["rows"])
    vectors = np.load(args.snapshot / "vectors.npy", mmap_mode="r")[:rows]
    queries = await _queries(args.queries, args.data)
    progress(f"{rows} rows, {len(queries)} queries: exact top 10")
    exact = _exact(vectors, queries)
    runs: list[dict[str, Any]] = []
    trained_on = min(args.trained_on or rows, rows)
    for lists, codes in itertools.product(args.lists, args.codes):
        index, build_s = _ivf(faiss, vectors, lists, trained_on, codes)
        progress(f"{lists} lists of {codes} trained on {trained_on} rows, built in {build_s:.1f} s")
        for probes in args.probes:
            params = faiss.SearchParametersIVF(nprobe=min(probes, lists))
            run: dict[str, Any] = {"kind": "ivf", "codes": codes, "lists": lists}
            if codes.startswith("pq"):
                found, cpu_ms = _timed_search(index, queries, params, args.rerank)
                labels, rerank_ms = _reranked(vectors, queries, found)
                run |= {"reranked": args.rerank, "rerank_cpu_ms_per_query": round(rerank_ms, 2)}
            else:
                labels, cpu_ms = _timed_search(index, queries, params)
            recall, none = _recall(labels, exact)
            runs.append(
                run
                | {
                    "trained_on_rows": trained_on,
                    "build_wall_s": round(build_s, 1),
                    "probes": probes,
                    "recall_at_10": recall,
                    "queries_finding_none": none,
                    "cpu_ms_per_query": round(cpu_ms, 2),
                }
            )
            progress(json.dumps(runs[-1]))
        del index
    if args.graph is not None:
        graph = faiss.read_index(str(args.graph))
        for ef in args.ef:
            labels, cpu_ms = _timed_search(graph, queries, faiss.SearchParametersHNSW(efSearch=ef))
            recall, none = _recall(labels, exact)
            runs.append(
                {
                    "kind": "hnsw (file)",
                    "ef_search": ef,
                    "recall_at_10": recall,
                    "queries_finding_none": none,
                    "cpu_ms_per_query": round(cpu_ms, 2),
                }
            )
            progress(json.dumps(runs[-1]))
    return {"rows": rows, "queries": len(queries), "runs": runs, "machine": machine_info()}


def main(argv: list[str] | None = None) -> None:
    print(json.dumps(asyncio.run(_main(_parse(argv))), separators=(",", ":")))


if __name__ == "__main__":
    main()
