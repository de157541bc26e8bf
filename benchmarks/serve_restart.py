"""What a person waits for after restarting ``tessera serve``: to the first correct search.

    python -m benchmarks.serve_restart --notes 20000 [--data-dir DIR] [--restarts 5]

Fills a data directory through the real service (one-line notes over HTTP,
each with a code word of its own; skipped when ``--data-dir`` already holds
that many), waits until every note is embedded, stops the service with
SIGTERM as a person's Ctrl-C or a service manager would, then starts it
``--restarts`` times. Each start is timed from the moment the process is
spawned: until ``/api/health`` first answers (and with what status), until
the service can search, and until a search for one note's code word returns
that note first. The service's own log lines are kept with their offsets, so
where the seconds go is visible. With ``--baseline DIR`` (another checkout,
e.g. ``git worktree add /tmp/base <commit>``) the two start in turns on the
same data and the ratio of their medians is printed. Prints one JSON object.
"""

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx

from benchmarks._stats import progress, report_head

__all__ = [
    "ROOT",
    "arms",
    "checkouts_parser",
    "env_for",
    "free_port",
    "in_turns",
    "main",
    "spawn_serve",
    "stop",
    "wait_healthy",
]

ROOT = Path(__file__).resolve().parents[1]
_MARK = "serve-restart-notes.json"
_WORDS = ("call", "the", "plumber", "about", "garden", "tap", "before", "Friday", "and", "bring")


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.serve_restart", description=__doc__)
    p.add_argument("--notes", type=int, default=20_000)
    p.add_argument("--data-dir", type=Path, help="kept between runs (default: a fresh temp dir)")
    p.add_argument("--restarts", type=int, default=5)
    p.add_argument("--writers", type=int, default=8, help="concurrent writers while filling")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument(
        "--baseline",
        type=Path,
        help="another checkout of the project (e.g. a git worktree of an older commit): its "
        "serve and this one start in turns on the same data, and the ratio is printed",
    )
    return p.parse_args(argv)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def arms(baseline: Path | None) -> dict[str, Path]:
    """The checkouts a run compares, in turns: another one first where given, then this."""
    return {"this": ROOT} if baseline is None else {"baseline": baseline, "this": ROOT}


def checkouts_parser(prog: str, doc: str | None, runs: int) -> argparse.ArgumentParser:
    """The arguments of a benchmark that times a filled data directory, this checkout
    and optionally another in turns (``arms``, ``in_turns``)."""
    p = argparse.ArgumentParser(prog=f"python -m {prog}", description=doc)
    p.add_argument("--data-dir", type=Path, required=True)
    p.add_argument("--runs", type=int, default=runs)
    p.add_argument("--baseline", type=Path, help="another checkout, run in turns with this one")
    return p


def in_turns(
    checkouts: dict[str, Path], runs: int, loads: list[float]
) -> Iterator[tuple[int, str, Path]]:
    """``(run, arm, checkout)`` for each run and each checkout in turns, so the machine's
    moods fall on every arm; the one-minute load average before each goes to ``loads``."""
    for n in range(runs):
        for arm, code in checkouts.items():
            loads.append(os.getloadavg()[0])
            yield n, arm, code
        progress(f"run {n + 1}/{runs}")


def env_for(data_dir: Path, port: int, code: Path = ROOT) -> dict[str, str]:
    # a person's install keeps compiled modules (pip writes them; Python does on first run)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("TESSERA_") and k != "PYTHONDONTWRITEBYTECODE"
    }
    env.update(
        TESSERA_DATA_DIR=str(data_dir),
        TESSERA_PORT=str(port),
        TESSERA_LOG_LEVEL="INFO",
        PYTHONPATH=str(code),
    )
    return env


def _note(i: int) -> str:
    words = " ".join(random.Random(i).sample(_WORDS, 6))
    return f"Note {i}: {words}, code word zq{i}x."


def spawn_serve(data_dir: Path, port: int, code: Path = ROOT) -> "subprocess.Popen[str]":
    cmd = [sys.executable, "-m", "entrypoints.cli", "serve"]
    return subprocess.Popen(  # noqa: S603 - this interpreter and a fixed argv
        cmd,
        cwd=code,
        env=env_for(data_dir, port, code),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def stop(proc: "subprocess.Popen[str]") -> str:
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=120)
    return out


def wait_healthy(server: "subprocess.Popen[Any]", port: int, timeout: float = 300) -> None:
    """Until the service at ``port`` answers its health ok; exits if it stops first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"tessera serve exited ({server.returncode}) before its health")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/health").status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise SystemExit("tessera serve did not answer its health in time")


def _key(data_dir: Path) -> str:
    return (data_dir / "credentials" / "owner.key").read_text().strip()


async def _wait_healthy(client: httpx.AsyncClient, proc: "subprocess.Popen[str]") -> None:
    while True:
        if proc.poll() is not None:
            raise SystemExit(f"tessera serve exited:\n{proc.stdout.read() if proc.stdout else ''}")
        try:
            if (await client.get("/api/health")).json().get("status") == "ok":
                return
        except (httpx.TransportError, ValueError):
            pass
        await asyncio.sleep(0.05)


async def _fill(data_dir: Path, notes: int, writers: int) -> None:
    port = free_port()
    proc = spawn_serve(data_dir, port)
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=120) as client:
            await _wait_healthy(client, proc)
            client.headers["authorization"] = f"Bearer {_key(data_dir)}"
            queue = iter(range(notes))
            done = 0

            async def writer() -> None:
                nonlocal done
                for i in queue:
                    body = {"content": _note(i), "source_type": "note"}
                    (await client.post("/api/memory/remember", json=body)).raise_for_status()
                    done += 1
                    if done % 1000 == 0:
                        progress(f"written {done}/{notes}")

            await asyncio.gather(*(writer() for _ in range(writers)))
            while True:  # every note embedded: a restart then has nothing to catch up
                status = (await client.get("/api/status")).json()
                pending = sum(o.get("embedding_pending") or 0 for o in status["organisations"])
                if pending == 0:
                    break
                progress(f"{pending} notes still to embed")
                await asyncio.sleep(2)
    finally:
        stop(proc)
    (data_dir / _MARK).write_text(json.dumps({"notes": notes}))


async def _one_start(
    data_dir: Path, notes: int, rng: random.Random, code: Path = ROOT
) -> dict[str, Any]:
    port = free_port()
    target = rng.randrange(notes)
    started, wall = time.perf_counter(), time.time()
    proc = spawn_serve(data_dir, port, code)
    seen: dict[str, Any] = {"code": str(code)}
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
            client.headers["authorization"] = f"Bearer {_key(data_dir)}"
            while True:
                if proc.poll() is not None:
                    raise SystemExit(f"serve exited:\n{proc.stdout.read() if proc.stdout else ''}")
                try:
                    health = (await client.get("/api/health")).json().get("status")
                except (httpx.TransportError, ValueError):
                    await asyncio.sleep(0.01)
                    continue
                now = time.perf_counter() - started
                seen.setdefault("first_answer_s", now)
                seen.setdefault("first_health", health)
                if health == "ok":
                    seen.setdefault("healthy_s", now)
                body = {"query": f"zq{target}x", "limit": 3}
                reply = await client.post("/api/search", json=body)
                if reply.status_code == 200:
                    hits = reply.json()["results"]
                    if hits and hits[0]["text"] == _note(target):
                        seen["first_correct_search_s"] = time.perf_counter() - started
                        break
                await asyncio.sleep(0.01)
    finally:
        log = stop(proc)
    seen["log"] = [_offset(line, wall) for line in log.splitlines() if "tessera" in line][:20]
    return seen


def _offset(line: str, spawned: float) -> str:
    """A log line with its time as seconds after the spawn (the log's clock is local time)."""
    try:
        at = time.mktime(time.strptime(line[:19], "%Y-%m-%d %H:%M:%S")) + int(line[20:23]) / 1000
    except ValueError:
        return line
    return f"+{at - spawned:.2f} s {line[24:]}"


async def _run(args: argparse.Namespace) -> dict[str, Any]:
    data_dir = args.data_dir or Path(tempfile.mkdtemp(prefix="tessera-restart-"))
    mark = data_dir / _MARK
    filled = json.loads(mark.read_text())["notes"] if mark.exists() else 0
    if filled != args.notes:
        if filled:
            raise SystemExit(f"{data_dir} holds {filled} notes, not {args.notes}: use another")
        progress(f"filling {data_dir} with {args.notes} notes over HTTP")
        t0 = time.perf_counter()
        await _fill(data_dir, args.notes, args.writers)
        progress(f"filled in {time.perf_counter() - t0:.0f} s")
    rng = random.Random(args.seed)
    checkouts = arms(args.baseline)
    starts: dict[str, list[dict[str, Any]]] = {arm: [] for arm in checkouts}
    loads: list[float] = []
    for n, arm, code in in_turns(checkouts, args.restarts, loads):
        one = await _one_start(data_dir, args.notes, rng, code)
        progress(f"{arm} start {n + 1}: first correct search {one['first_correct_search_s']:.2f} s")
        starts[arm].append(one)
    result = report_head("serve_restart", loads, notes=args.notes)
    for arm, ones in starts.items():
        firsts = [s["first_correct_search_s"] for s in ones]
        result[arm] = {
            "first_correct_search_s_median": round(statistics.median(firsts), 3),
            "first_correct_search_s": [round(f, 3) for f in firsts],
            "first_answer_s": [round(s["first_answer_s"], 3) for s in ones],
            "first_health": [s["first_health"] for s in ones],
            "log_of_the_last_start": ones[-1]["log"],
        }
    if args.baseline is not None:
        result["ratio_this_to_baseline"] = round(
            result["this"]["first_correct_search_s_median"]
            / result["baseline"]["first_correct_search_s_median"],
            3,
        )
    return result


def main(argv: list[str] | None = None) -> None:
    print(json.dumps(asyncio.run(_run(_parse(argv))), indent=2))


if __name__ == "__main__":
    main()
