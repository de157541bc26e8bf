"""What a delete leaves in the embedded engine's files, and what ``compact()`` removes.

    python -m benchmarks.delete_residue [--orgs 5] [--turns 500]

Three measurements, each on a fresh store, every write through
``MemoryService.remember``:

1. canary trail (surrealkv://): remember a short and a long (> 4 KiB) note
   holding a unique canary among real turns, and a second organisation
   holding another; delete both notes (their rows and chunks, as a delete
   does), close/reopen, write more and reopen again (the engine's own
   compaction runs), drop the second organisation (``REMOVE NAMESPACE``) and
   finally ``compact()``. After each step: which files hold each canary, and
   the directory size.
2. space (surrealkv://): create and drop N organisations of T turns beside a
   small kept one; directory size before, after the drops, after ``compact()``.
3. memory (mem://, in a child process so the figure is its own): RSS after
   each organisation is created and dropped (after a ``malloc_trim``, so it
   counts what the engine holds), then after ``compact()``; once with drops
   only, once with ``compact()`` after every drop.

Progress and figures go to stdout; the last line is one JSON object.
"""

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from adapters.surreal.codec import namespace_for
from adapters.surreal.compaction import directory_bytes, release_freed_memory
from adapters.surreal.memory_store import SurrealMemoryStore
from benchmarks._residue import canary_files, load_turns, remember_all, rss_mib, service_on

__all__ = ["main"]

CANARY = "Okapicanary5519"
CANARY_DROPPED = "Narwhalcanary8830"


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.delete_residue", description=__doc__)
    p.add_argument("--orgs", type=int, default=5, help="organisations created and dropped")
    p.add_argument("--turns", type=int, default=500, help="turns remembered per organisation")
    p.add_argument("--context", type=int, default=200, help="turns around the canary notes")
    p.add_argument("--rounds", type=int, default=4, help="write-and-reopen rounds after delete")
    parts = ["all", "canary", "space", "memory", "memory-compact"]
    p.add_argument("--part", choices=parts, default="all", help="run one measurement only")
    return p.parse_args(argv)


def _mb(n: int) -> float:
    return round(n / 1e6, 2)


def _surreal(store: Any) -> SurrealMemoryStore:
    assert isinstance(store, SurrealMemoryStore)
    return store


async def _delete_sources(conn: Any, org: str, source_ids: list[str]) -> None:
    """What a delete removes: the source row and its chunks (the tombstone is the corrections')."""
    for source_id in source_ids:
        await conn.query(
            namespace_for(org),
            "DELETE chunk WHERE source_id = $s; DELETE type::record('source', $s);",
            {"s": source_id},
            operation="deleting a source",
            write=True,
        )


async def _canary_trail(args: argparse.Namespace, root: Path) -> list[dict[str, Any]]:
    data = root / "canary"
    store, service = service_on(f"surrealkv://{data}")
    conn = _surreal(store).connection
    org, dropped, steps = "residue-canary", "residue-dropped", []
    turns, _ = load_turns(args.context + args.rounds * 50 + 10)

    def step(name: str) -> None:
        size = _mb(directory_bytes(data))
        found = {c: canary_files(data, c) for c in (CANARY, CANARY_DROPPED)}
        steps.append(
            {"step": name, "mb": size, "deleted": found[CANARY], "dropped": found[CANARY_DROPPED]}
        )
        print(f"  {name:40s} {size:7.2f} MB  deleted note in: {found[CANARY] or 'none'}")
        print(f"  {'':40s} {'':7s}     dropped org in:  {found[CANARY_DROPPED] or 'none'}")

    long_note = f"{CANARY} opens a long note. " + " ".join(turns[: args.context])[:6000]
    secrets = await remember_all(service, org, [f"My locker code is {CANARY}.", long_note])
    await remember_all(service, org, turns[: args.context])
    await remember_all(service, dropped, [f"The alarm code is {CANARY_DROPPED}.", *turns[:20]])
    step("remembered (engine open)")
    await conn.checkpoint()
    step("closed and reopened")
    await _delete_sources(conn, org, secrets)
    step("2 sources deleted (engine open)")
    await conn.checkpoint()
    step("deleted, closed and reopened")
    extra = turns[args.context : args.context + args.rounds * 50]
    for n in range(args.rounds):
        await remember_all(service, org, extra[n * 50 : (n + 1) * 50])
        await conn.checkpoint()
    step(f"{args.rounds} x (50 more turns + reopen)")
    await store.drop_organization(dropped)
    await conn.checkpoint()
    step("other organisation dropped, reopened")
    report = await _surreal(store).compact()
    step(f"compact() ({report.seconds:.1f} s, {report.rows} rows)")
    live = await store.count_chunks(org)
    print(f"  live chunks of {org} after compact(): {live}")
    await store.close()
    return steps


async def _space(args: argparse.Namespace, root: Path) -> dict[str, Any]:
    data = root / "space"
    store, service = service_on(f"surrealkv://{data}")
    conn = _surreal(store).connection
    turns, source = load_turns(args.turns + 50)
    await remember_all(service, "residue-kept", turns[:50])
    await conn.checkpoint()
    figures: dict[str, Any] = {"turns": source, "kept_mb": _mb(directory_bytes(data))}
    print(f"  {'kept organisation (50 turns)':40s} {figures['kept_mb']:7.2f} MB")
    began = time.perf_counter()
    for n in range(args.orgs):
        org = f"residue-throwaway-{n}"
        await remember_all(service, org, turns[50 : 50 + args.turns])
        await store.drop_organization(org)
    await conn.checkpoint()
    figures["fill_s"] = round(time.perf_counter() - began, 1)
    figures["dropped_mb"] = _mb(directory_bytes(data))
    label = f"after {args.orgs} x {args.turns} turns created + dropped"
    print(f"  {label:40s} {figures['dropped_mb']:7.2f} MB")
    report = await _surreal(store).compact()
    figures["compacted_mb"] = _mb(directory_bytes(data))
    figures["compact_s"] = round(report.seconds, 2)
    figures["compact_rows"] = report.rows
    label = f"after compact() ({report.seconds:.1f} s, {report.rows} rows)"
    print(f"  {label:40s} {figures['compacted_mb']:7.2f} MB")
    assert await store.count_chunks("residue-kept") > 0
    await store.close()
    return figures


async def _memory(args: argparse.Namespace, compact_each: bool) -> dict[str, Any]:
    store, service = service_on("mem://")
    turns, _ = load_turns(args.turns + 1)
    await remember_all(service, "residue-warm", turns[:1])
    release_freed_memory()
    rss: dict[str, Any] = {"start": round(rss_mib(), 1), "created": [], "dropped": []}
    for n in range(args.orgs):
        org = f"residue-mem-{n}"
        await remember_all(service, org, turns[1 : 1 + args.turns])
        rss["created"].append(round(rss_mib(), 1))
        await store.drop_organization(org)
        if compact_each:
            await _surreal(store).compact()
        release_freed_memory()  # what the engine still holds, not what malloc keeps
        rss["dropped"].append(round(rss_mib(), 1))
    report = await _surreal(store).compact()
    rss["compacted"] = round(rss_mib(), 1)
    rss["compact_s"] = round(report.seconds, 2)
    await store.close()
    return rss


def _memory_in_child(args: argparse.Namespace, part: str) -> dict[str, Any]:
    command = [sys.executable, "-m", "benchmarks.delete_residue", "--part", part]
    command += ["--orgs", str(args.orgs), "--turns", str(args.turns)]
    run = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603
    lines = run.stdout.strip().splitlines()
    if not lines or not lines[-1].startswith("{"):
        return {"error": f"child exited {run.returncode}: {run.stderr.strip()[-300:]}"}
    return dict(json.loads(lines[-1])[part])


def _print_memory(title: str, rss: dict[str, Any]) -> None:
    print(f"  {title}")
    if "error" in rss:
        print(f"    {rss['error']}")
        return
    print(f"    RSS MiB at start {rss['start']}; after each organisation created {rss['created']}")
    print(f"    after each drop {rss['dropped']}; after a final compact() {rss['compacted']}")


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    if args.part in ("memory", "memory-compact"):
        return {args.part: await _memory(args, compact_each=args.part == "memory-compact")}
    figures: dict[str, Any] = {"orgs": args.orgs, "turns": args.turns}
    with tempfile.TemporaryDirectory(prefix="tessera-residue-") as tmp:
        if args.part in ("all", "canary"):
            print("1. canary trail (surrealkv://)")
            figures["canary"] = await _canary_trail(args, Path(tmp))
        if args.part in ("all", "space"):
            print("2. space after dropping organisations (surrealkv://)")
            figures["space"] = await _space(args, Path(tmp))
    if args.part == "all":
        print("3. process memory on mem:// (a child process each)")
        figures["memory"] = _memory_in_child(args, "memory")
        _print_memory("drop only:", figures["memory"])
        figures["memory_compact"] = _memory_in_child(args, "memory-compact")
        _print_memory("drop, then compact() after each drop:", figures["memory_compact"])
    return figures


def main(argv: list[str] | None = None) -> None:
    print(json.dumps(asyncio.run(_main(_parse(argv)))))


if __name__ == "__main__":
    main()
