"""The crash test at scale: ``kill -9`` during a bulk import, restart, index against store.

    python -m benchmarks.crash_import --store /path/filled --work /tmp/crash300k \\
        [--conversations 2000] [--kill-after 300]

``--store`` is a data directory a scale run left (``db``, and ``db.index`` if it
wrote a snapshot); it is copied to ``--work`` (never written). Then:

1. a real ``tessera import start`` (the CLI, in its own process, on the copy, the
   organisation ``--org``) of a JSONL chat archive made of LongMemEval haystack
   sessions, killed with SIGKILL once its progress bar shows ``--kill-after``
   conversations read (the embedding lane still working behind it);
2. a fresh interpreter restarts through the composition root's factories
   (``tessera serve``'s wiring: store without SurrealDB's search indexes, the
   snapshotting in-process index) and times the engine open, the index open
   (snapshot + catch-up from the store's change sequence, or a rebuild), and the
   first search that finds an imported message; it lets the lane embed what the
   killed process left pending, then checks (benchmarks._agreement) that every
   chunk the store holds open is in the index, none is extra, the vectors agree,
   and every imported chunk (and a sample of older ones) is found by its own
   words and vector.

Prints one JSON object (last line of stdout); exits 1 when the index disagrees.
"""

import argparse
import asyncio
import json
import lzma
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks._data import DATA_HELP, data_path
from benchmarks._footprint import dir_bytes, peak_rss_mb
from benchmarks._stats import code_version, machine_info, progress

__all__ = ["main"]

ROOT = Path(__file__).resolve().parent.parent
_BAR = re.compile(rb"\| *(\d+)/\d+ \[")


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.crash_import", description=__doc__)
    p.add_argument("--store", type=Path, help="filled data directory to copy (holds db/)")
    p.add_argument("--work", type=Path, help="where the copy goes (must not exist)")
    p.add_argument("--org", default="bench")
    p.add_argument("--conversations", type=int, default=2000, help="sessions in the archive")
    p.add_argument("--kill-after", type=int, default=300, help="conversations read, then kill")
    p.add_argument("--data", type=Path, help=DATA_HELP)
    p.add_argument("--phase", help=argparse.SUPPRESS)
    p.add_argument("--after", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--query", default="", help=argparse.SUPPRESS)
    return p.parse_args(argv)


def _sessions(path: Path, wanted: int) -> list[list[dict[str, str]]]:
    """Distinct LongMemEval haystack sessions, in data order: real conversations."""
    with lzma.open(path, "rt", encoding="utf-8") as handle:
        items = json.load(handle)
    seen: set[str] = set()
    out: list[list[dict[str, str]]] = []
    for item in items:
        for session in item["haystack_sessions"]:
            turns = [
                {"role": str(t["role"]), "content": str(t["content"])}
                for t in session
                if str(t.get("content", "")).strip()
            ]
            key = "\n".join(t["content"] for t in turns)
            if turns and key not in seen:
                seen.add(key)
                out.append(turns)
                if len(out) == wanted:
                    return out
    return out


def write_archive(path: Path, sessions: list[list[dict[str, str]]]) -> None:
    """One JSON line per conversation, the ``jsonl`` import adapter's format."""
    with path.open("w", encoding="utf-8") as handle:
        for n, turns in enumerate(sessions):
            record = {"id": f"crash-{n}", "title": f"session {n}", "messages": turns}
            handle.write(json.dumps(record) + "\n")


def _env(work: Path, org: str, key: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TESSERA_")}
    env.update(
        TESSERA_DATA_DIR=str(work),
        TESSERA_ORG=org,
        TESSERA_API_KEY=key,
        TESSERA_LOG_LEVEL="WARNING",
        PYTHONPATH=str(ROOT),
    )
    return env


def kill_midway(archive: Path, work: Path, env: dict[str, str], past: int) -> dict[str, Any]:
    """``tessera import start``, SIGKILLed once its bar shows more than ``past`` read."""
    began = time.perf_counter()
    command = [sys.executable, "-m", "entrypoints.cli", "import", "start", str(archive)]
    proc = subprocess.Popen(  # noqa: S603 - this interpreter and the project's CLI
        [*command, "--adapter", "jsonl"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert proc.stderr is not None
    seen, read, first_bar = b"", 0, None
    while True:
        chunk = os.read(proc.stderr.fileno(), 4096)
        if not chunk:
            proc.wait(timeout=60)
            raise RuntimeError(f"the import ended before the kill: {seen[-800:]!r}")
        seen = (seen + chunk)[-8192:]
        counts = [int(n) for n in _BAR.findall(seen)]
        if counts and first_bar is None:
            first_bar = time.perf_counter() - began  # the index open and the archive read
        if counts and counts[-1] > past:
            read = counts[-1]
            break
    proc.kill()
    proc.wait(timeout=60)
    return {
        "killed_after_s": round(time.perf_counter() - began, 1),
        "to_first_progress_s": None if first_bar is None else round(first_bar, 1),
        "bar_read_at_kill": read,
        "exit_code": proc.returncode,
    }


async def _before_import(work: Path, org: str) -> tuple[int, str]:
    """The change sequence before the import, and an owner key for the CLI to use."""
    from adapters.inmemory.hashing_embedder import HashingEmbedder
    from adapters.inprocess.index import InProcessIndex
    from benchmarks._wiring import make_services, make_store, owner_key

    store = make_store(f"surrealkv://{work / 'db'}", native_search=False)
    try:
        # the control plane only: no index is opened, no model loaded
        services = make_services(store, InProcessIndex(), HashingEmbedder(dimension=384), org)
        key = await owner_key(services)
        await services.audit.flush()
        return (await store.change_position(org)).sequence, key
    finally:
        await store.close()


def _run_restart(args: argparse.Namespace, after: int, query: str) -> dict[str, Any]:
    command = [sys.executable, "-m", "benchmarks.crash_import", "--phase", "restart"]
    command += ["--work", str(args.work), "--org", args.org, "--after", str(after)]
    command += ["--query", query]
    done = subprocess.run(  # noqa: S603 - this interpreter and this module, our own arguments
        command, stdout=subprocess.PIPE, text=True, check=False, timeout=3600, cwd=ROOT
    )  # its progress goes to our stderr
    if done.returncode != 0:
        raise RuntimeError(f"the restart failed (exit {done.returncode}); see above")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _query(sessions: list[list[dict[str, str]]]) -> str:
    """A message of the first conversation (read before any kill), short enough to be
    one chunk: the first correct search must return it."""
    for turn in sessions[0] + [t for s in sessions[1:20] for t in s]:
        if 40 <= len(turn["content"]) <= 400:
            return turn["content"]
    raise ValueError("no short message in the first conversations")


def main(argv: list[str] | None = None) -> None:
    args = _parse(argv)
    if args.phase == "restart":
        from benchmarks._crash_restart import restart as restarted

        print(json.dumps(asyncio.run(restarted(args))), flush=True)
        return
    if args.store is None or args.work is None:
        raise SystemExit("--store and --work are required")
    if args.work.exists():
        raise SystemExit(f"{args.work} exists: the copy must be fresh")
    code = code_version()
    began = time.perf_counter()
    shutil.copytree(args.store, args.work, symlinks=True)
    copied_s = time.perf_counter() - began
    progress(f"copied {args.store} to {args.work} in {copied_s:.0f} s")
    sessions = _sessions(data_path(args.data), args.conversations)
    archive = args.work / "crash-archive.jsonl"
    write_archive(archive, sessions)
    after, key = asyncio.run(_before_import(args.work, args.org))
    progress(f"importing {len(sessions)} conversations; kill after {args.kill_after}")
    killed = kill_midway(archive, args.work, _env(args.work, args.org, key), args.kill_after)
    progress(f"killed: {json.dumps(killed)}; restarting")
    restart = _run_restart(args, after, _query(sessions))
    out = {
        "store_copied_from": str(args.store),
        "copy_s": round(copied_s, 1),
        "archive": {
            "conversations": len(sessions),
            "messages": sum(len(s) for s in sessions),
            "bytes": archive.stat().st_size,
        },
        "import_killed": killed,
        "restart": restart,
        "store_bytes": dir_bytes(args.work / "db"),
        "snapshot_bytes": dir_bytes(args.work / "db.index"),
        "parent_peak_rss_mb": peak_rss_mb(),
        "machine": machine_info(),
        "load_avg": os.getloadavg(),
        "code": code,
    }
    print(json.dumps(out, separators=(",", ":")), flush=True)
    if not restart["agreement"]["agrees"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
