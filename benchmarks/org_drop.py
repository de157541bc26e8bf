"""Space after creating and dropping organisations: the old drop against ``tessera admin org drop``.

    python -m benchmarks.org_drop [--orgs 5] [--turns 500] [--modes before,after]
                                  [--engines surrealkv,mem]

Each run is a child process over a fresh store with the
whole service (control plane and audit trail on the same engine, the native
index, the hashing embedder at width 384 so rows have the real size). It
creates one organisation after another through the control plane, remembers
T turns in each as its owner (``MemoryService.remember``), then drops it:

- ``before``: ``MemoryService.drop_organization``, what existed before the
  fix (its namespace removed; its control rows stay; nothing is compacted);
- ``after``: ``OrgDropper.preview`` then ``drop`` with the token (what the
  route and the command call): namespace, control rows, then ``compact()``.

After each creation and each drop: the data directory's size (surrealkv://),
the process RSS after a ``malloc_trim`` (both engines) and, to tell Python's
memory from the engine's, the interpreter's allocated blocks and live objects
after a ``gc.collect()``. Figures go to stdout; the last line is JSON.
"""

import argparse
import asyncio
import gc
import json
import subprocess
import sys
import tempfile
import time
from typing import Any

from adapters.inmemory.hashing_embedder import HashingEmbedder
from adapters.surreal.compaction import directory_bytes, release_freed_memory
from application.memory.commands import RememberRequest
from application.services import Services
from benchmarks._residue import DIMENSION, load_turns, rss_mib
from benchmarks._wiring import make_index, make_services, make_store
from domain.policy import OrgRole, Surface
from entrypoints.container import make_control_store

__all__ = ["main"]

_MODES = ("before", "after")
_ENGINES = ("surrealkv", "mem")


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.org_drop", description=__doc__)
    p.add_argument("--orgs", type=int, default=5, help="organisations created and dropped")
    p.add_argument("--turns", type=int, default=500, help="turns remembered per organisation")
    p.add_argument("--modes", default=",".join(_MODES), help="comma-separated: before, after")
    p.add_argument("--engines", default=",".join(_ENGINES), help="comma-separated: surrealkv, mem")
    p.add_argument("--child", nargs=2, metavar=("ENGINE", "MODE"), help=argparse.SUPPRESS)
    return p.parse_args(argv)


async def _fill(services: Services, name: str, turns: list[str]) -> None:
    org = await services.control.create_organization(name, None, Surface.CLI)
    boss = await services.control.create_principal(
        org.org_id, "boss", None, Surface.CLI, org_role=OrgRole.OWNER
    )
    await services.control.create_key(org.org_id, boss.principal_id, None, Surface.CLI)
    for text in turns:
        ctx = await services.access.context_for(boss, Surface.JOB, services.audit.new_id())
        await services.memory.remember(RememberRequest(org_id=org.org_id, content=text), ctx)
    await services.memory.lane.drain()  # every vector written before the drop is timed


async def _child(engine: str, mode: str, orgs: int, turns_per_org: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="tessera-orgdrop-") as tmp:
        url = f"surrealkv://{tmp}/data" if engine == "surrealkv" else "mem://"
        store = make_store(url)
        services = make_services(
            store, make_index("surreal", store), HashingEmbedder(DIMENSION), "home"
        )
        await services.open(Surface.CLI)
        turns, source = load_turns(turns_per_org)

        def size() -> float:
            if engine == "surrealkv":
                return round(directory_bytes(f"{tmp}/data") / 1e6, 2)
            return rss()

        def rss() -> float:
            release_freed_memory()  # what the engine holds, not what malloc keeps
            return round(rss_mib(), 1)

        def python_side() -> list[int]:
            gc.collect()
            return [sys.getallocatedblocks(), len(gc.get_objects())]

        figures: dict[str, Any] = {"start": size(), "created": [], "dropped": [], "turns": source}
        figures |= {"rss_start": rss(), "rss_created": [], "rss_dropped": []}
        figures |= {"python_start": python_side(), "python_dropped": []}
        began = time.perf_counter()
        drop_s = 0.0
        for n in range(orgs):
            name = f"throwaway-{n}"
            await _fill(services, name, turns)
            figures["created"].append(size())
            figures["rss_created"].append(rss())
            t0 = time.perf_counter()
            if mode == "before":
                org = await services.control.organization(name)
                await services.memory.drop_organization(org.org_id)
            else:
                preview = await services.orgs.preview(name, None, Surface.CLI)
                await services.orgs.drop(name, preview.token, None, Surface.CLI)
            drop_s += time.perf_counter() - t0
            figures["dropped"].append(size())
            figures["rss_dropped"].append(rss())
            figures["python_dropped"].append(python_side())
        figures["seconds"] = round(time.perf_counter() - began, 1)
        figures["drop_s_each"] = round(drop_s / max(orgs, 1), 2)
        # control rows left behind (the old drop kept the organisation, its people and keys)
        figures["orgs_left"] = len(await make_control_store(store).list_organizations())
        await services.close()
        return figures


def _run_child(engine: str, mode: str, args: argparse.Namespace) -> dict[str, Any]:
    command = [sys.executable, "-m", "benchmarks.org_drop", "--child", engine, mode]
    command += ["--orgs", str(args.orgs), "--turns", str(args.turns)]
    run = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603
    lines = run.stdout.strip().splitlines()
    if not lines or not lines[-1].startswith("{"):
        return {"error": f"child exited {run.returncode}: {run.stderr.strip()[-400:]}"}
    return dict(json.loads(lines[-1]))


def main(argv: list[str] | None = None) -> None:
    args = _parse(argv)
    if args.child:
        engine, mode = args.child
        print(json.dumps(asyncio.run(_child(engine, mode, args.orgs, args.turns))))
        return
    results: dict[str, Any] = {"orgs": args.orgs, "turns": args.turns}
    unit = {"surrealkv": "MB on disk", "mem": "MiB RSS"}
    engines = [e for e in args.engines.split(",") if e in _ENGINES]
    modes = [m for m in args.modes.split(",") if m in _MODES]
    for engine in engines:
        for mode in modes:
            fig = _run_child(engine, mode, args)
            results[f"{engine}_{mode}"] = fig
            print(f"{engine:9s} {mode:6s} ({unit[engine]}): {fig}", flush=True)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
