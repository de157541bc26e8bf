"""Loopback load: N clients against the real app, a mix of search, context pack and remember.

    python -m benchmarks.load [--clients 50] [--seconds 30] [--notes 2000]
                              [--embedder onnx|hashing] [--modes old,new]
                              [--soak 600 [--sample-every 10] [--warmup 60]]

Whether writes starve under read load. The service is what
``tessera serve`` runs (``create_app`` over the composition root's services:
SurrealDB embedded on surrealkv://, the native index, control plane and audit
trail on the same engine) in a child process on 127.0.0.1 behind uvicorn; the
clients (httpx, one connection each) run in this process. The store is
filled once with ``--notes`` LongMemEval turns; each mode serves a fresh copy
of that directory. Each client loops: 80 % search, 15 % context pack, 5 %
remember (seeded), until ``--seconds`` have passed or ``--max-requests`` are
done. Modes (``TESSERA_LOAD_MODE`` in the child): ``old`` serves as before the
fix, ``new`` as now; ``new:TESSERA_BLAS_THREADS=auto`` serves ``new`` with that
setting; ``new@/path/to/worktree`` serves ``new`` from another checkout's code (a
``git worktree`` of an earlier commit, its store format the same) on the same fill;
``--rounds`` interleaves them (old, new, old, new, ...).

``--soak S`` then serves the ``new`` mode once more for S seconds under the
same mix and samples the server's memory (``benchmarks._soak``): RSS growth
per hour after the warm-up, and what grew (Python's blocks and objects, the
data directory).

Prints per mode and class n, p50/p95/max and throughput; the last line is JSON.
"""

import argparse
import asyncio
import contextlib
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

import httpx

from benchmarks._load_profile import Profile
from benchmarks._residue import load_turns
from benchmarks._soak import print_growth, soak_report
from benchmarks._stats import summarize

__all__ = ["main"]

_CLASSES = ("search", "pack", "remember")


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.load", description=__doc__)
    p.add_argument("--clients", type=int, default=50)
    p.add_argument("--seconds", type=float, default=30.0, help="per mode and round")
    p.add_argument("--max-requests", type=int, default=20000, help="per mode and round")
    p.add_argument("--notes", type=int, default=2000, help="turns remembered before the run")
    p.add_argument("--embedder", choices=["onnx", "hashing"], default="hashing")
    p.add_argument(
        "--index",
        choices=["inprocess", "surreal"],
        default="inprocess",
        help="the retrieval index (serve's default: inprocess)",
    )
    p.add_argument(
        "--modes",
        default="old,new",
        help="comma-separated: old, new; MODE:NAME=VALUE serves MODE with that setting; "
        "MODE@CHECKOUT serves it from another checkout's code",
    )
    p.add_argument("--rounds", type=int, default=1, help="each mode this many times, interleaved")
    p.add_argument("--port", type=int, default=18765)
    p.add_argument("--profile", action="store_true", help="print where the server's time went")
    p.add_argument("--soak", type=float, default=0.0, help="seconds of soak after the modes")
    p.add_argument("--sample-every", type=float, default=10.0, help="soak: seconds per sample")
    p.add_argument("--warmup", type=float, default=60.0, help="soak: seconds left out of the slope")
    p.add_argument("--child", nargs=2, metavar=("DATA", "PORT"), help=argparse.SUPPRESS)
    p.add_argument("--fill-only", action="store_true", help=argparse.SUPPRESS)
    return p.parse_args(argv)


# -- the served side (a child process) -----------------------------------------


def _embedder(kind: str) -> Any:
    if kind == "hashing":
        from adapters.inmemory.hashing_embedder import HashingEmbedder
        from benchmarks._residue import DIMENSION

        return HashingEmbedder(DIMENSION)
    from benchmarks._wiring import make_embedder

    return make_embedder()


async def _serve(args: argparse.Namespace) -> None:
    import uvicorn

    from application.memory.commands import RememberRequest
    from benchmarks._wiring import make_index, make_services, make_store, owner_key
    from domain.policy import Surface
    from entrypoints.http.app import create_app

    data, port = args.child[0], int(args.child[1])
    store = make_store(f"surrealkv://{data}")
    embedder = _embedder(args.embedder)
    services = make_services(store, make_index(args.index, store), embedder, "home")
    mode = os.environ.get("TESSERA_LOAD_MODE", "new")
    # old: reads do not yield to waiting writes (as before writes were preferred)
    store.connection.prefer_writes = mode != "old"  # type: ignore[attr-defined]
    await services.open(Surface.CLI)
    if args.fill_only:
        owner = await services.control.principal("home", "owner")
        turns, source = load_turns(args.notes)
        print(source, flush=True)  # the parent records which turns filled the store
        for text in turns:
            ctx = await services.access.context_for(owner, Surface.JOB, services.audit.new_id())
            await services.memory.remember(RememberRequest(org_id="home", content=text), ctx)
        await services.memory.lane.drain()  # the filled store is settled: every vector made
        await services.close()
        return
    key = await owner_key(services)
    profile_to = os.environ.get("TESSERA_LOAD_PROFILE")
    profile = Profile() if profile_to else None

    def write_profile() -> None:
        # uvicorn re-raises SIGTERM after shutting down: write it in the app's shutdown hook
        if profile is not None and profile_to:
            Path(profile_to).write_text(json.dumps(profile.report(), indent=1))

    config = uvicorn.Config(
        create_app(services, on_shutdown=[write_profile]),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        access_log=False,
        lifespan="on",
    )
    if profile is not None:
        profile.install(embedder)
    print(json.dumps({"key": key}), flush=True)
    samples_to = os.environ.get("TESSERA_LOAD_SAMPLES")
    sampler = None
    if samples_to:
        from benchmarks._soak import sample_forever

        every = float(os.environ.get("TESSERA_LOAD_SAMPLE_EVERY", "10"))
        sampler = asyncio.create_task(sample_forever(Path(samples_to), Path(data), every))
    try:
        await uvicorn.Server(config).serve()
    finally:
        if sampler is not None:
            sampler.cancel()
        await services.close()


# -- the clients ---------------------------------------------------------------


async def _client(
    base: str, key: str, seed: int, queries: list[str], until: float, budget: list[int]
) -> dict[str, list[float]]:
    rng = random.Random(seed)
    out: dict[str, list[float]] = {c: [] for c in _CLASSES}
    out["errors"] = []
    headers = {"authorization": f"Bearer {key}"}
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=60.0) as http:
        while time.perf_counter() < until and budget[0] > 0:
            budget[0] -= 1
            roll, query = rng.random(), rng.choice(queries)
            if roll < 0.80:
                kind, path, body = "search", "/api/search", {"query": query, "limit": 10}
            elif roll < 0.95:
                kind, path = "pack", "/api/context/pack"
                body = {"query": query, "token_budget": 1000}
            else:
                kind, path = "remember", "/api/memory/remember"
                body = {"content": f"Load note {seed}-{rng.random():.6f}: {query}"}
            began = time.perf_counter()
            try:
                response = await http.post(path, json=body)
                ok = response.status_code < 400
            except httpx.HTTPError:
                ok = False
            elapsed = (time.perf_counter() - began) * 1000
            out[kind if ok else "errors"].append(elapsed)
    return out


async def _load(
    args: argparse.Namespace, base: str, key: str, queries: list[str], seconds: float
) -> Any:
    until = time.perf_counter() + seconds
    budget = [args.max_requests if seconds == args.seconds else 10**9]
    began = time.perf_counter()
    parts = await asyncio.gather(
        *(_client(base, key, n, queries, until, budget) for n in range(args.clients))
    )
    wall = time.perf_counter() - began
    merged: dict[str, list[float]] = {c: [] for c in (*_CLASSES, "errors")}
    for part in parts:
        for kind, samples in part.items():
            merged[kind].extend(samples)
    done = sum(len(merged[c]) for c in _CLASSES)
    return {
        "throughput_rps": round(done / wall, 1),
        "wall_s": round(wall, 1),
        "errors": len(merged["errors"]),
        **{c: summarize(merged[c]) for c in _CLASSES},
    }


def arm_of(mode: str) -> tuple[str, Path | None, tuple[str, str] | None]:
    """A ``--modes`` entry: the mode served, the checkout whose code serves it (None:
    this one), and one setting for it. ``new:TESSERA_X=Y`` serves ``new`` with that
    setting (arms of a setting); ``new@/path`` serves ``new`` from the checkout at /path,
    a ``git worktree`` of another commit (arms of two commits on one fill)."""
    head, _, setting = mode.partition(":")
    served, _, checkout = head.partition("@")
    pair = None
    if setting:
        name, _, value = setting.partition("=")
        pair = (name, value)
    return served, Path(checkout) if checkout else None, pair


def _child_command(args: argparse.Namespace, data: Path, port: int) -> list[str]:
    command = [sys.executable, "-m", "benchmarks.load", "--child", str(data), str(port)]
    command += ["--embedder", args.embedder, "--index", args.index]
    return [*command, "--notes", str(args.notes)]


async def _wait_healthy(base: str, proc: "subprocess.Popen[str]") -> None:
    async with httpx.AsyncClient(base_url=base, timeout=2.0) as http:
        for _ in range(300):
            if proc.poll() is not None:
                raise RuntimeError(f"the server exited {proc.returncode}")
            with contextlib.suppress(httpx.HTTPError):
                if (await http.get("/api/health")).status_code == 200:
                    return
            await asyncio.sleep(0.2)
    raise RuntimeError("the server did not answer /api/health in 60 s")


async def _one(
    args: argparse.Namespace, mode: str, filled: Path, port: int, soak: float = 0.0
) -> Any:
    queries, _ = load_turns(args.notes)
    # questions are short: the first dozen words of a turn
    queries = [" ".join(q.split()[:12]) for q in queries[:: max(1, len(queries) // 300)]]
    with tempfile.TemporaryDirectory(prefix="tessera-load-run-") as tmp:
        data = Path(tmp) / "data"
        shutil.copytree(filled, data)
        served, checkout, setting = arm_of(mode)
        env = {**os.environ, "TESSERA_LOAD_MODE": served}
        if setting is not None:
            env[setting[0]] = setting[1]
        if checkout is not None:  # that checkout's code serves (and reads its own modules)
            env["PYTHONPATH"] = str(checkout)
        profile_file = Path(tmp) / "profile.json"
        if args.profile:
            env["TESSERA_LOAD_PROFILE"] = str(profile_file)
        samples_file = Path(tmp) / "samples.jsonl"
        if soak:
            env["TESSERA_LOAD_SAMPLES"] = str(samples_file)
            env["TESSERA_LOAD_SAMPLE_EVERY"] = str(args.sample_every)
        proc = subprocess.Popen(  # noqa: S603, ASYNC220
            _child_command(args, data, port),
            env=env,
            stdout=subprocess.PIPE,
            text=True,
            cwd=checkout,
        )
        try:
            assert proc.stdout is not None
            key = json.loads(proc.stdout.readline())["key"]
            base = f"http://127.0.0.1:{port}"
            await _wait_healthy(base, proc)
            fig = await _load(args, base, key, queries, soak or args.seconds)
        finally:
            proc.terminate()
            proc.wait(timeout=60)
        if soak and samples_file.exists():
            fig["soak"] = soak_report(samples_file, args.warmup)
        if args.profile and profile_file.exists():
            fig["profile"] = json.loads(profile_file.read_text())
            for name, s in fig["profile"].items():
                print(
                    f"    {name:58s} n={s['n']:6d} p50 {s.get('p50_ms', 0):8.1f} "
                    f"p95 {s.get('p95_ms', 0):8.1f} total {s['total_s']:7.1f} s"
                )
        return fig


def _print(mode: str, fig: dict[str, Any]) -> None:
    print(f"  {mode}: {fig['throughput_rps']} req/s over {fig['wall_s']} s, errors {fig['errors']}")
    for c in _CLASSES:
        s = fig[c]
        if s.get("n"):
            print(
                f"    {c:9s} n={s['n']:5d} p50 {s['p50_ms']:8.1f}  p95 {s['p95_ms']:8.1f}"
                f"  max {s['max_ms']:8.1f} ms"
            )


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    results: dict[str, Any] = {
        "clients": args.clients,
        "seconds": args.seconds,
        "notes": args.notes,
        "embedder": args.embedder,
        "runs": [],
    }
    with tempfile.TemporaryDirectory(prefix="tessera-load-") as tmp:
        filled = Path(tmp) / "filled"
        began = time.perf_counter()
        fill = [*_child_command(args, filled, args.port), "--fill-only"]
        # the child says which turns it filled with: they go with the figures
        child = subprocess.run(fill, check=True, stdout=subprocess.PIPE, text=True)  # noqa: S603, ASYNC221
        results["turns"] = child.stdout.strip().splitlines()[-1]
        took = time.perf_counter() - began
        results["fill_s"] = round(took, 1)
        print(f"filled {args.notes} notes ({results['turns']}) in {took:.0f} s", flush=True)
        modes = [m.strip() for m in args.modes.split(",") if m.strip()]
        for round_no in range(args.rounds):
            for mode in modes:
                load = round(os.getloadavg()[0], 2)
                fig = await _one(args, mode, filled, args.port)
                results["runs"].append({"mode": mode, "round": round_no, "load": load, **fig})
                print(f"  load average at its start: {load}", flush=True)
                _print(mode, fig)
        if args.soak:
            fig = await _one(args, "new", filled, args.port, args.soak)
            results["soak"] = fig
            _print(f"soak {args.soak:.0f} s", fig)
            print_growth(fig.get("soak", {}))
    return results


def main(argv: list[str] | None = None) -> None:
    args = _parse(argv)
    if args.child:
        asyncio.run(_serve(args))
        return
    print(json.dumps(asyncio.run(_main(args))))


if __name__ == "__main__":
    main()
