"""Does the embedded engine give memory back? The SurrealDB SDK alone, no Tessera code.

    python -m benchmarks.engine_memory [--rounds 8] [--rows 1000]

On ``mem://`` the process kept growing after organisations
were dropped and the store compacted, while Python's own allocations stayed
flat (benchmarks/org_drop.py records both). This isolates the engine: each
round defines, in a namespace, one table shaped like Tessera's chunk table
(text under a BM25 full-text index, a 384-dim vector under HNSW), inserts
``--rows`` rows in batches of 25, runs ``REMOVE NAMESPACE``, then replaces the
engine with a fresh ``mem://`` one and closes the old (what ``compact()`` does
on ``mem://``). RSS is read after ``malloc_trim``. Each variant runs in its own
child process: all indexes, no HNSW, no full-text, neither; ``--same-ns``
reuses one namespace name (a cache keyed by name would then stop growing).
Run it under another allocator (``LD_PRELOAD=libjemalloc.so.2
MALLOC_CONF=dirty_decay_ms:0,muzzy_decay_ms:0``) to rule out fragmentation.
The last line is JSON.
"""

import argparse
import asyncio
import json
import random
import subprocess
import sys
from typing import Any

from surrealdb import AsyncSurreal

from adapters.surreal.compaction import release_freed_memory
from benchmarks._residue import rss_mib

__all__ = ["main"]

_SCHEMA = {
    "analyzer": "DEFINE ANALYZER tx TOKENIZERS class FILTERS lowercase, snowball(english);",
    "table": "DEFINE TABLE chunk SCHEMAFULL;",
    "text": "DEFINE FIELD text ON chunk TYPE string;",
    "emb": "DEFINE FIELD emb ON chunk TYPE array<float>;",
    "fulltext": "DEFINE INDEX ft ON chunk FIELDS text FULLTEXT ANALYZER tx BM25;",
    "hnsw": "DEFINE INDEX hv ON chunk FIELDS emb HNSW DIMENSION 384 DIST COSINE TYPE F32;",
}
_VARIANTS: dict[str, tuple[str, ...]] = {
    "both indexes": (),
    "no hnsw": ("hnsw",),
    "no full-text": ("fulltext",),
    "no index": ("hnsw", "fulltext"),
}
_WORDS = [
    "tea",
    "garden",
    "meeting",
    "budget",
    "travel",
    "museum",
    "recipe",
    "invoice",
    "river",
    "doctor",
    "train",
]


def _rss() -> float:
    release_freed_memory()
    return round(rss_mib(), 1)


async def _child(without: list[str], rounds: int, rows: int, same_ns: bool) -> dict[str, Any]:
    rng = random.Random(7)
    schema = " ".join(v for k, v in _SCHEMA.items() if k not in without)
    db = AsyncSurreal("mem://")
    await db.connect()
    out: dict[str, Any] = {"start": _rss(), "filled": [], "replaced": []}
    for r in range(rounds):
        ns = "org_same" if same_ns else f"org_{r}"
        await db.query(f"USE NS {ns} DB memory; {schema}")
        for _ in range(0, rows, 25):
            batch: list[Any] = [
                {
                    "text": " ".join(
                        f"{rng.choice(_WORDS)}{rng.randint(0, 999)}" for _ in range(80)
                    ),
                    "emb": [rng.random() for _ in range(384)],
                }
                for _ in range(25)
            ]
            await db.query(
                f"USE NS {ns} DB memory; INSERT INTO chunk $rows RETURN NONE", {"rows": batch}
            )
        out["filled"].append(_rss())
        await db.query(f"REMOVE NAMESPACE {ns}")
        fresh = AsyncSurreal("mem://")
        await fresh.connect()
        await db.close()
        db = fresh
        out["replaced"].append(_rss())
    await db.close()
    out["closed"] = _rss()
    kept = out["replaced"]
    out["kept_per_round_mib"] = round((kept[-1] - kept[0]) / max(len(kept) - 1, 1), 1)
    return out


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.engine_memory", description=__doc__)
    p.add_argument("--rounds", type=int, default=8)
    p.add_argument("--rows", type=int, default=1000)
    p.add_argument("--same-ns", action="store_true")
    p.add_argument("--child", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child is not None:
        skip = [w for w in args.child.split(",") if w]
        print(
            json.dumps(asyncio.run(_child(skip, args.rounds, args.rows, args.same_ns))),
            flush=True,
        )
        return
    results: dict[str, Any] = {"rounds": args.rounds, "rows": args.rows, "same_ns": args.same_ns}
    for name, without in _VARIANTS.items():
        command = [sys.executable, "-m", "benchmarks.engine_memory", "--child", ",".join(without)]
        command += ["--rounds", str(args.rounds), "--rows", str(args.rows)]
        if args.same_ns:
            command.append("--same-ns")
        run = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603
        lines = [line for line in run.stdout.splitlines() if line.startswith("{")]
        fig = json.loads(lines[-1]) if lines else {"error": f"exited {run.returncode}"}
        results[name] = fig
        print(f"{name:13s} {fig}", flush=True)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
