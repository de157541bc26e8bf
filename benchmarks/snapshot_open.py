"""Opening an in-process index snapshot: with its vector index file in it, without, and memory.

    python -m benchmarks.snapshot_open --rows 100000 [--cache DIR] [--data FILE]

Builds one organisation's snapshotting index over ``--rows`` chunks (real
LongMemEval turns cut at 1,000 characters like the chunker, real MiniLM
vectors from the embedding cache, read only; four spaces, episodes of three
rows), past the graph threshold, and writes its snapshot. Then each arm opens
it in a fresh interpreter through ``PersistentInProcessIndex.restore`` (the
manifest's checks included) and runs vector queries:

- ``graph``: the snapshot as written, the graph read from ``graph.faiss``;
- ``no_graph``: the same snapshot less its graph file (what a snapshot of the
  release before held): the restore rebuilds the graph from the vectors;
- ``exact``: the same snapshot opened by an exact-only index (no graph at all).

For each: wall and CPU seconds of the restore, the process's resident memory
before and after it, after the queries and after 1,000 rows written (VmRSS,
RssAnon, RssFile from /proc), the estimate of ``adapters/inprocess/footprint.py``
by part, and vector-leg CPU ms per query.
After those readings, each arm measures the vector leg's recall@10 against
the exact scan (a numpy product over the f32 matrix) on the held-out real
vectors, and how far the scores the leg returns (the graph's f16 copy) are
from the f32 cosines.
No store is involved (the engine's own open is measured by benchmarks.restart;
the serving process's own memory by benchmarks.service_baseline).
Prints one JSON object (last stdout line).

Past what the data holds (the embedding cache: ~186k real vectors, the
corpus: 186,222 chunks), rows are made so that a million keep realistic
text and vectors: texts are chunks of ``benchmarks._variation``'s varied
turns (recombined sentences, shifted numbers, rotated names), and row ``n``'s
vector is real vector ``n mod P`` (P: the cache less the held-out queries)
plus gaussian noise of ``--sigma`` per dimension, renormalised (as the bulk
fill perturbs them: cosine ~0.93 to its origin at the default 0.02), seeded by
the batch. The held-out queries are never in the corpus.
"""

import argparse
import asyncio
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgspec

from benchmarks._data import DATA_HELP, data_path, load_corpus
from benchmarks._snapshot_rows import chunk_texts, recall_vs_exact, row_vectors
from benchmarks._stats import code_version, machine_info, progress, summarize

__all__ = ["main"]

_MODEL = "all-MiniLM-L6-v2-onnx-int8"
_ORG = "bench"
_BATCH = 5000
_ARMS = ("graph", "no_graph", "exact")


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.snapshot_open", description=__doc__)
    p.add_argument("--rows", type=int, default=100_000)
    p.add_argument("--queries", type=int, default=100, help="held-out real vectors as queries")
    p.add_argument("--cache", type=Path, help="embedding-cache directory (read only)")
    p.add_argument("--data", type=Path, help=DATA_HELP)
    p.add_argument(
        "--sigma", type=float, default=0.02, help="per-dimension noise of the perturbed rows"
    )
    p.add_argument(
        "--arms", nargs="+", choices=_ARMS, default=list(_ARMS), help="which opens to measure"
    )
    p.add_argument("--phase", choices=_ARMS, help=argparse.SUPPRESS)
    p.add_argument("--root", type=Path, help=argparse.SUPPRESS)
    return p.parse_args(argv)


def _memory() -> dict[str, float]:
    out: dict[str, float] = {}
    for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
        key = line.split(":", 1)[0]
        if key in ("VmRSS", "RssAnon", "RssFile", "VmHWM"):
            out[key] = round(int(line.split()[1]) / 1024, 1)
    return out


def _space() -> Any:
    from application.ports.records import EmbeddingSpace

    return EmbeddingSpace(model=_MODEL, dimension=384)


async def _build(args: argparse.Namespace, root: Path) -> dict[str, Any]:
    from adapters.inprocess.persistent import PersistentInProcessIndex
    from application.ports.changes import ChangePosition
    from application.ports.records import IndexEntry
    from benchmarks._real_vectors import load_real_vectors
    from domain.scopes import MemoryScope

    real = load_real_vectors(args.cache)
    pool = real.matrix[: len(real) - args.queries]  # the last ones are the held-out queries
    if len(pool) < min(args.rows, 1000):
        raise ValueError(f"the cache holds {len(real)} vectors: too few")
    texts = chunk_texts(load_corpus(data_path(args.data)).turns, args.rows)
    began = time.perf_counter()
    made_s = time.perf_counter() - began
    index = PersistentInProcessIndex(root)
    began, cpu = time.perf_counter(), time.process_time()
    for start in range(0, args.rows, _BATCH):
        end = min(start + _BATCH, args.rows)
        block = row_vectors(pool, start, end, args.sigma)
        entries = [
            IndexEntry(
                chunk_id=f"chunk-{n:08d}",
                source_id=f"source-{n // 3:08d}",
                text=texts[n],
                vector=block[n - start].tolist(),
                scope=MemoryScope.TEAM,
                scope_key=f"team-{(n // 3) % 4}",
                turn_index=n % 3,
            )
            for n in range(start, end)
        ]
        await index.add(_ORG, entries)
        progress(f"  built {min(start + _BATCH, args.rows)} rows")
    await index.mark_ready(_ORG)
    built = {"wall_s": time.perf_counter() - began, "cpu_s": time.process_time() - cpu}
    index.set_position(_ORG, ChangePosition(epoch="bench", sequence=args.rows))
    began = time.perf_counter()
    info = await index.save_snapshot(_ORG, _space())
    assert info is not None
    return {
        "corpus": {
            "real_vectors": min(args.rows, len(pool)),
            "perturbed_vectors": max(args.rows - len(pool), 0),
            "sigma": args.sigma,
            "texts_made_s": round(made_s, 1),
        },
        "build": {k: round(v, 1) for k, v in built.items()},
        "save_s": round(time.perf_counter() - began, 1),
        "snapshot_bytes": info.bytes,
    }


def _without_graph(root: Path, copy: Path) -> None:
    """A copy of the snapshot less its graph file (and its manifest entry)."""
    from adapters.inprocess.graph_file import GRAPH_FILE
    from adapters.inprocess.snapshot_files import Manifest, SnapshotFiles

    shutil.copytree(root, copy)
    live = SnapshotFiles(copy).live(_ORG)
    assert live is not None
    (live / GRAPH_FILE).unlink(missing_ok=True)
    path = live / "manifest.json"
    manifest = msgspec.json.decode(path.read_bytes(), type=Manifest)
    files = {k: v for k, v in manifest.files.items() if k != GRAPH_FILE}
    path.write_bytes(msgspec.json.encode(msgspec.structs.replace(manifest, files=files)))


async def _open(args: argparse.Namespace) -> dict[str, Any]:
    """One arm, in a fresh interpreter: restore, measure, query."""
    import importlib

    import numpy as np

    from adapters.inprocess.ann import AnnPolicy
    from adapters.inprocess.footprint import footprint
    from adapters.inprocess.persistent import PersistentInProcessIndex
    from application.ports.records import CandidateFilter
    from benchmarks._real_vectors import load_real_vectors
    from domain.scopes import MemoryScope

    importlib.import_module("faiss")  # the native import is not the open
    real = load_real_vectors(args.cache)
    queries = [real.matrix[len(real) - 1 - n].tolist() for n in range(args.queries)]
    del real
    before = _memory()
    policy = None if args.phase == "exact" else AnnPolicy()
    index = PersistentInProcessIndex(args.root, ann_policy=policy)
    began, cpu = time.perf_counter(), time.process_time()
    load = await index.restore(_ORG, _space())
    wall, cpu = time.perf_counter() - began, time.process_time() - cpu
    after = _memory()
    org = index._orgs[_ORG]
    where = CandidateFilter()
    ms = []
    for vector in queries:
        org.cache.invalidate()
        start = time.process_time()
        await index.vector(_ORG, vector, 50, where)
        ms.append((time.process_time() - start) * 1000)
    after_queries = _memory()
    from adapters.inprocess.snapshot_files import SnapshotFiles

    live = SnapshotFiles(args.root).live(_ORG)
    assert live is not None
    versus_exact = await recall_vs_exact(index, org, queries, _ORG, live / "vectors.npy")
    # writes after the restore: 1,000 rows (copies of the first rows' entries, new ids)
    from application.ports.records import IndexEntry

    assert org.vectors is not None
    entries = [
        IndexEntry(
            chunk_id=f"late-{n}",
            source_id=f"late-source-{n // 3}",
            text=org.texts[n].text,
            vector=np.asarray(org.vectors[n]).tolist(),
            scope=MemoryScope.TEAM,
            scope_key="team-0",
        )
        for n in range(1000)
    ]
    began = time.perf_counter()
    await index.add(_ORG, entries)
    write_s = time.perf_counter() - began
    after_writes = _memory()
    return {
        "memory_mb_after_queries": after_queries,
        "memory_mb_after_1000_writes": after_writes,
        "vector_leg_vs_exact": versus_exact,
        "write_1000_rows_s": round(write_s, 2),
        "outcome": str(load.outcome),
        "restore_wall_s": round(wall, 2),
        "restore_cpu_s": round(cpu, 2),
        "graph_read_from_snapshot": org.graph_restored,
        "graph_rows": None if org.graph is None else org.graph.labelled,
        "memory_mb_before": before,
        "memory_mb_after": after,
        "rss_added_mb": round(after["VmRSS"] - before["VmRSS"], 1),
        "estimate_mb": {k: round(v / 1e6, 1) for k, v in footprint(org).items()},
        "vector_leg_cpu_ms": summarize(ms),
        "vectors_mapped": isinstance(org.vectors, np.memmap),
    }


def _arm(args: argparse.Namespace, phase: str, root: Path) -> dict[str, Any]:
    command = [sys.executable, "-m", "benchmarks.snapshot_open", "--phase", phase]
    command += ["--root", str(root), "--queries", str(args.queries)]
    if args.cache is not None:
        command += ["--cache", str(args.cache)]
    progress(f"arm {phase}")
    done = subprocess.run(  # noqa: S603 - this interpreter and module, our own arguments
        command, capture_output=True, text=True, check=False, timeout=3600
    )
    if done.returncode != 0:
        raise RuntimeError(f"arm {phase} failed: {done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> None:
    args = _parse(argv)
    if args.phase is not None:
        print(json.dumps(asyncio.run(_open(args))), flush=True)
        return
    work = Path(tempfile.mkdtemp(prefix="tessera-snapopen-"))
    try:
        progress(f"building {args.rows} rows")
        built = asyncio.run(_build(args, work / "with"))
        _without_graph(work / "with", work / "without")
        roots = {"graph": work / "with", "no_graph": work / "without", "exact": work / "with"}
        arms = {arm: _arm(args, arm, roots[arm]) for arm in args.arms}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    result = {"rows": args.rows, **built, "arms": arms}
    result |= {"machine": machine_info(), "code": code_version()}
    print(json.dumps(result, separators=(",", ":")))


if __name__ == "__main__":
    main()
