"""Reflection on write: what the background lane costs ``remember`` (p50/p95, on vs off).

    python -m benchmarks.reflection --on-write --writes 600

Two installs side by side, as ``tessera serve`` runs them (embedded
SurrealDB, the in-process index, the hashing embedder: no model), one with
``TESSERA_REFLECT_ON_WRITE`` on (``Services.reflect_on_write``) and one
without. The same made-up conversations (a decision, a task, a preference,
an event and small talk) are remembered one at a time, in blocks that
alternate between the two installs so machine noise hits both alike; the
first block of each is a warm-up and not counted. While the "on" install
writes, its lane reflects concurrently in the same event loop (that
contention is the cost measured); before the "off" block starts, the "on"
lane is drained, and that catch-up time is reported on its own. The figures
time the real ``MemoryService.remember``.
"""

import argparse
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from adapters.inmemory.hashing_embedder import HashingEmbedder
from adapters.inprocess.index import InProcessIndex
from application.memory.commands import RememberRequest
from application.services import Services
from application.trust.records import PrincipalRecord
from benchmarks._stats import code_version, machine_info, progress, summarize
from benchmarks._wiring import make_services, make_store
from domain.models import Turn
from domain.policy import OrgRole, Surface

__all__ = ["run_on_write"]

_BLOCK = 50


async def _install(url: str, name: str) -> tuple[Services, PrincipalRecord]:
    embedder = HashingEmbedder(dimension=384)
    services = make_services(make_store(url), InProcessIndex(), embedder, f"{name}-home")
    await services.open(Surface.CLI)
    org = await services.control.create_organization(name, None, Surface.CLI)
    who = await services.control.create_principal(
        org.org_id, "owner", None, Surface.CLI, org_role=OrgRole.OWNER
    )
    return services, who


async def _remember(services: Services, who: PrincipalRecord, turns: list[Turn]) -> float:
    ctx = await services.access.context_for(who, Surface.CLI, services.audit.new_id())
    began = time.perf_counter()
    await services.memory.remember(RememberRequest(org_id=who.org_id, turns=turns), ctx)
    return (time.perf_counter() - began) * 1000


async def run_on_write(
    args: argparse.Namespace, data_dir: Path, session: Callable[[int, random.Random], list[Turn]]
) -> dict[str, Any]:
    """``session(i, rng)`` makes conversation ``i`` (the reflection benchmark's)."""
    rng = random.Random(args.seed)

    def url(arm: str) -> str:
        return f"surrealkv://{data_dir / arm}" if args.store == "surrealkv" else "mem://"

    off, off_who = await _install(url("off"), "off")
    on, on_who = await _install(url("on"), "on")
    lane = on.reflect_on_write()
    assert lane is not None
    times: dict[str, list[float]] = {"off": [], "on": []}
    catch_up: list[float] = []
    try:
        sessions = [session(i, rng) for i in range(args.writes)]
        blocks = [sessions[i : i + _BLOCK] for i in range(0, len(sessions), _BLOCK)]
        progress(f"remembering {args.writes} conversations into each install ({args.store})")
        for n, block in enumerate(blocks):
            arms = ("on", "off") if n % 2 else ("off", "on")
            for arm in arms:
                services, who = (on, on_who) if arm == "on" else (off, off_who)
                spent = [await _remember(services, who, turns) for turns in block]
                if n > 0:  # the first block of each install warms it up
                    times[arm] += spent
                if arm == "on":
                    began = time.perf_counter()
                    await lane.drain()
                    catch_up.append((time.perf_counter() - began) * 1000)
            progress(f"  block {n + 1}/{len(blocks)}")
        state = lane.queue_state()
        off_p95 = summarize(times["off"]).get("p95_ms", 0.0)
        on_p95 = summarize(times["on"]).get("p95_ms", 0.0)
        return {
            "benchmark": "reflection_on_write",
            "store": args.store,
            "writes_per_install": args.writes,
            "remember_off": summarize(times["off"]),
            "remember_on": summarize(times["on"]),
            "p95_ratio_on_over_off": round(on_p95 / off_p95, 3) if off_p95 else None,
            "lane": {
                "sources_reflected": state.done,
                "failed": state.failed,
                "dropped": lane.dropped,
                "drain_after_block_ms": summarize(catch_up),
            },
            "machine": machine_info(),
            "code": code_version(),
        }
    finally:
        await on.close()
        await off.close()
