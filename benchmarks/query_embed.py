"""The search query's embedding: float32 (as before) against int8 arithmetic, cost and closeness.

    python -m benchmarks.query_embed [--data LME.json.xz] [--rounds 3]

Two ``OnnxEmbedder`` runs over the LongMemEval questions, one query at a time,
alternating in one process so both see the same machine:
- ``float32``: the query on the document session, as every search did before
  (``TESSERA_QUERY_PRECISION=float32``: onnxruntime's default threads);
- ``int8``: the query session (``adapters/embedders/int8_matmul.py``, one thread).
Reported per query: CPU milliseconds of the process (p50/p95; the wall clock on
two shared cores mostly measures other processes) and wall p50/p95.

Closeness, from the same vectors: cosine of each int8 query vector to its
float32 one (min/p1/p50), and the top-10 overlap of an exact scan over the
real document vectors of the embedding cache (``benchmarks/_real_vectors.py``;
every row, float32 as stored): the share of the float32 query's ten nearest
rows that the int8 query also ranks in its ten. Figures: last stdout line.
"""

import argparse
import json
import time
from pathlib import Path

import numpy as np

from adapters.embedders.onnx_minilm import OnnxEmbedder
from benchmarks._data import data_path
from benchmarks._lme_data import load_questions
from benchmarks._real_vectors import load_real_vectors
from benchmarks._stats import machine_info, progress

__all__ = ["main"]


def _timed(embedder: OnnxEmbedder, query: str, int8: bool) -> tuple[list[float], float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    vector = embedder.embed_queries_sync([query])[0] if int8 else embedder.embed_sync([query])[0]
    return vector, (time.process_time() - cpu) * 1e3, (time.perf_counter() - wall) * 1e3


def _pct(values: list[float]) -> dict[str, float]:
    return {
        "p50": round(float(np.percentile(values, 50)), 2),
        "p95": round(float(np.percentile(values, 95)), 2),
    }


def _overlap(
    documents: np.ndarray, exact: np.ndarray, approx: np.ndarray, k: int = 10
) -> list[float]:
    shares = []
    for a, b in zip(exact, approx, strict=True):
        top_a = np.argpartition(-(documents @ a), k)[:k]
        top_b = np.argpartition(-(documents @ b), k)[:k]
        shares.append(len(set(top_a.tolist()) & set(top_b.tolist())) / k)
    return shares


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=None, help="LongMemEval .json or .json.xz")
    p.add_argument("--rounds", type=int, default=3, help="timed passes over the questions")
    args = p.parse_args()
    questions = [str(q["question"]) for q in load_questions(data_path(args.data))]
    exact, fast = OnnxEmbedder(query_int8=False), OnnxEmbedder()
    exact.embed_sync(["warm up"])
    fast.embed_queries_sync(["warm up"])
    costs: dict[str, dict[str, list[float]]] = {
        arm: {"cpu": [], "wall": []} for arm in ("float32", "int8")
    }
    vectors: dict[str, list[list[float]]] = {"float32": [], "int8": []}
    total = args.rounds * len(questions)
    for n in range(total):
        query = questions[n % len(questions)]
        # alternate which arm goes first, so neither always runs on a warmer cache
        arms = [("float32", exact, False), ("int8", fast, True)]
        for arm, embedder, int8 in arms if n % 2 == 0 else reversed(arms):
            vector, cpu, wall = _timed(embedder, query, int8)
            costs[arm]["cpu"].append(cpu)
            costs[arm]["wall"].append(wall)
            if n < len(questions):
                vectors[arm].append(vector)
        if (n + 1) % 100 == 0 or n + 1 == total:
            progress(f"{n + 1}/{total} queries")
    a, b = np.array(vectors["float32"]), np.array(vectors["int8"])
    cosine = (a * b).sum(axis=1)
    real = load_real_vectors()
    overlap = _overlap(real.matrix, a, b) if len(real) > 10 else []
    out = {
        "questions": len(questions),
        "rounds": args.rounds,
        "cpu_ms": {arm: _pct(c["cpu"]) for arm, c in costs.items()},
        "wall_ms": {arm: _pct(c["wall"]) for arm, c in costs.items()},
        "cpu_ratio_p50": round(
            float(np.percentile(costs["int8"]["cpu"], 50))
            / float(np.percentile(costs["float32"]["cpu"], 50)),
            3,
        ),
        "cosine": {
            "min": round(float(cosine.min()), 5),
            "p1": round(float(np.percentile(cosine, 1)), 5),
            "p50": round(float(np.percentile(cosine, 50)), 5),
        },
        "top10_overlap": {
            "rows": len(real),
            "mean": round(float(np.mean(overlap)), 4) if overlap else None,
            "min": min(overlap) if overlap else None,
        },
        "machine": machine_info(),
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
