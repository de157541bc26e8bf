"""Restart cost of the in-process index: cold rebuild vs snapshot open, and catch-up.

    python -m benchmarks.restart --chunks 20000 [--data-dir DIR] [--catch-up 200]

Fills a surrealkv store with LongMemEval turns (benchmarks._fill_phase, real
and perturbed MiniLM vectors), then starts fresh processes, each timing what a
restart costs until its first correct search (a search for a stored turn's
words that returns that turn):

- ``cold``: the plain index, rebuilt from every chunk (what every start did before);
- ``first``: the snapshotting index without a snapshot: the same rebuild, then the
  snapshot written on the way out (its seconds and size reported);
- ``snapshot``: the snapshotting index opening that snapshot;
- ``crashed``: a process remembers ``--catch-up`` turns and dies without saving
  (``os._exit``); the next ``snapshot`` open reads them back from the store's changes.

Each phase runs in its own interpreter, so no cache of one warms the next; the
engine's own open is part of every figure. Prints one JSON object.
"""

import argparse
import asyncio
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks._data import DEFAULT_DATA, load_corpus
from benchmarks._footprint import anon_rss_mb, dir_bytes, peak_rss_mb, rss_mb
from benchmarks._stats import code_version, machine_info, progress

__all__ = ["main"]

OUT_DIR = Path(__file__).resolve().parent / "out"
_PHASES = ("cold", "first", "snapshot", "crashed")
#: the default run, in order; ``after_crash`` is a ``snapshot`` phase after ``crashed``
_RUN = ("cold", "first", "snapshot", "crashed", "after_crash")


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.restart", description=__doc__)
    p.add_argument("--chunks", type=int, default=20_000)
    p.add_argument("--data", type=Path, default=DEFAULT_DATA, help="LongMemEval .json.xz")
    p.add_argument("--data-dir", type=Path, help="store directory (default: a fresh temp dir)")
    p.add_argument("--embed-real", type=int, default=1000)
    p.add_argument("--sigma", type=float, default=0.02)
    p.add_argument("--catch-up", type=int, default=200, help="turns remembered, then crash")
    p.add_argument("--org", default="bench")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument(
        "--phases",
        default=",".join(_RUN),
        help=f"comma-separated, in order, of {', '.join(_RUN)} (on a filled store at scale: "
        "e.g. 'snapshot' after a run that wrote one, with --keep-snapshot)",
    )
    p.add_argument(
        "--keep-snapshot",
        action="store_true",
        help="keep the snapshot found beside the store (default: removed, every run starts cold)",
    )
    p.add_argument(
        "--settle",
        type=float,
        default=0.0,
        help="after the first search, wait this long and search again: background index "
        "work it started (the episode postings) lands, and its memory is counted",
    )
    p.add_argument("--phase", choices=_PHASES, help=argparse.SUPPRESS)
    p.add_argument("--url", help=argparse.SUPPRESS)
    p.add_argument("--query", help=argparse.SUPPRESS)
    return p.parse_args(argv)


def phases_of(raw: str) -> list[str]:
    """``--phases``: known names only, in the order given."""
    chosen = [p.strip() for p in raw.split(",") if p.strip()]
    unknown = [p for p in chosen if p not in _RUN]
    if unknown or not chosen:
        raise ValueError(f"--phases: {unknown or raw!r}; expected some of {', '.join(_RUN)}")
    return chosen


async def _phase(args: argparse.Namespace) -> dict[str, Any]:
    """One fresh process: open, first correct search, then the phase's own ending."""
    from adapters.inprocess.index import InProcessIndex
    from application.memory.commands import RememberRequest, SearchRequest
    from benchmarks._phases import authorized
    from benchmarks._wiring import make_embedder, make_index, make_services, make_store, owner_key
    from domain.policy import Surface
    from domain.scopes import SourceType

    embedder = make_embedder()
    await embedder.embed(["warm the model up"])  # model load is not index open
    began = time.perf_counter()
    store = make_store(args.url, native_search=False)  # as serve with the in-process index
    await store.open()  # type: ignore[attr-defined]
    engine_open = time.perf_counter() - began
    plain = args.phase == "cold"
    index = InProcessIndex() if plain else make_index("inprocess", store)
    services = make_services(store, index, embedder, args.org)
    await services.open(Surface.API)
    opened = time.perf_counter() - began
    key = await owner_key(services)
    request = SearchRequest(org_id=args.org, query=args.query, limit=10)
    found = await services.memory.search(request, await authorized(services, key))
    first_search = time.perf_counter() - began - opened
    correct = any(hit.text and hit.text in args.query for hit in found.results)
    out: dict[str, Any] = {
        "open_s": round(opened, 2),
        "engine_open_s": round(engine_open, 2),
        "index_open_s": round(opened - engine_open, 2),
        "first_search_ms": round(first_search * 1000, 1),
        "first_search_correct": correct,
        "to_first_correct_search_s": round(opened + first_search, 2) if correct else None,
        "peak_rss_mb": peak_rss_mb(),
    }
    if args.settle > 0:
        await asyncio.sleep(args.settle)
        await services.memory.search(request, await authorized(services, key))
        out["settled_s"] = args.settle
        out["peak_rss_settled_mb"] = peak_rss_mb()  # the whole process, steady state
        out["rss_settled_mb"] = rss_mb()
        out["anon_rss_settled_mb"] = anon_rss_mb()
    keeper = services.memory._readiness.snapshots
    if keeper is not None:
        out["snapshot_outcome"] = str(keeper.outcomes.get(args.org, "none"))
        out["caught_up_sources"] = keeper.caught_up.get(args.org)
    held = getattr(index, "_orgs", {}).get(args.org)
    if held is not None and held.graph is not None:  # past the ANN threshold: the inverted file
        out["graph"] = "read from the snapshot" if held.graph_restored else "built at open"
    if args.phase == "crashed":
        texts = [f"restart benchmark note {n}: {args.query[:200]}" for n in range(args.catch_up)]
        ctx = await authorized(services, key)
        for text in texts:
            remember = RememberRequest(org_id=args.org, content=text, source_type=SourceType.TURN)
            await services.memory.remember(remember, ctx)
        await services.memory.lane.drain()
        print(json.dumps(out), flush=True)
        os._exit(0)  # no clean close: the snapshot does not see these writes
    closing = time.perf_counter()
    await services.close()  # the snapshotting index writes its snapshot here
    out["close_s"] = round(time.perf_counter() - closing, 2)
    if not plain and keeper is not None:
        info = index.snapshot_info(args.org)  # type: ignore[attr-defined]
        out["snapshot_bytes"] = None if info is None else info.bytes
    return out


def _run_phase(args: argparse.Namespace, phase: str, url: str, query: str) -> dict[str, Any]:
    command = [sys.executable, "-m", "benchmarks.restart", "--phase", phase, "--url", url]
    command += ["--query", query, "--org", args.org, "--catch-up", str(args.catch_up)]
    command += ["--settle", str(args.settle)]
    progress(f"phase {phase}")
    done = subprocess.run(  # noqa: S603 - this interpreter and this module, our own arguments
        command, capture_output=True, text=True, check=False, timeout=3600
    )
    if done.returncode != 0:
        raise RuntimeError(f"phase {phase} failed: {done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


async def _fill(args: argparse.Namespace, url: str, turns: list[str]) -> dict[str, object]:
    from benchmarks._fill_phase import FillConfig, fill_store

    config = FillConfig(
        url=url,
        org_id=args.org,
        index="inprocess",
        chunks=args.chunks,
        embed_real=args.embed_real,
        sigma=args.sigma,
        concurrency=8,
        reopen_every=0,
        vector_dir=OUT_DIR / "vectors",
        native_search=False,
    )
    return await fill_store(config, turns)


def main(argv: list[str] | None = None) -> None:
    args = _parse(argv)
    if args.phase is not None:
        print(json.dumps(asyncio.run(_phase(args))), flush=True)
        return
    code = code_version()
    corpus = load_corpus(args.data)
    turns = list(corpus.turns)
    random.Random(args.seed).shuffle(turns)
    temp = args.data_dir is None
    data_dir = Path(tempfile.mkdtemp(prefix="tessera-restart-")) if temp else args.data_dir
    url = f"surrealkv://{data_dir / 'db'}"
    try:
        began = time.perf_counter()
        fill = asyncio.run(_fill(args, url, turns))
        fill["phase_seconds"] = round(time.perf_counter() - began, 1)
        if not args.keep_snapshot:
            shutil.rmtree(data_dir / "db.index", ignore_errors=True)  # every run starts cold
        query = next(t for t in turns[:50] if 40 <= len(t) <= 400)  # a stored turn, short
        phases: dict[str, Any] = {}
        for name in phases_of(args.phases):
            began = time.perf_counter()
            run = "snapshot" if name == "after_crash" else name
            result = _run_phase(args, run, url, query)
            # the whole subprocess: interpreter, model load, open, search, close
            phases[name] = {**result, "process_s": round(time.perf_counter() - began, 1)}
        sizes = {
            "store_bytes": dir_bytes(data_dir / "db"),
            "snapshot_bytes": dir_bytes(data_dir / "db.index"),
        }
    finally:
        if temp:
            shutil.rmtree(data_dir, ignore_errors=True)
    print(
        json.dumps(
            {
                "chunks": args.chunks,
                "catch_up_turns": args.catch_up,
                "phases": phases,
                **sizes,
                "fill": fill,
                "machine": machine_info(),
                "code": code,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
