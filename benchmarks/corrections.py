"""Corrections benchmark: preview and apply latency, and what corrections cost search.

    python -m benchmarks.corrections --chunks 10000

Two organisations get the same N one-chunk notes (synthetic sentences over a
fixed vocabulary) through ``remember`` on embedded SurrealDB (surrealkv by
default) with the in-process index, as ``tessera serve`` runs them. In the
second organisation 10 % of the sources are then corrected through the real
use case (a preview, then an apply with its token; hide, mark_wrong,
mark_stale, mark_sensitive, supersede, mark_duplicate, redact and delete in
turn), each step timed. Finally the same questions are searched in both
organisations, interleaved query by query so that machine noise hits both
alike, and the search p95 of the corrected organisation is divided by the
uncorrected one's. The embedder is the hashing embedder (no model), so the
figures are the correction path and the search path, not a model's.

Progress goes to stderr; the figures are one JSON object on stdout.
"""

import argparse
import asyncio
import json
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from adapters.inmemory.hashing_embedder import HashingEmbedder
from adapters.inprocess.index import InProcessIndex
from application.corrections.commands import CorrectionRequest
from application.memory.commands import RememberRequest, SearchRequest
from application.services import Services
from application.trust.records import PrincipalRecord
from benchmarks._notes import made_up_notes
from benchmarks._stats import code_version, machine_info, progress, summarize
from benchmarks._wiring import make_services, make_store
from domain.lifecycle import CorrectionAction
from domain.policy import MemoryPolicyContext, OrgRole, Surface

__all__ = ["main"]

_ACTIONS = (
    CorrectionAction.HIDE,
    CorrectionAction.MARK_WRONG,
    CorrectionAction.MARK_STALE,
    CorrectionAction.MARK_SENSITIVE,
    CorrectionAction.SUPERSEDE,
    CorrectionAction.MARK_DUPLICATE,
    CorrectionAction.REDACT,
    CorrectionAction.DELETE,
)
_CONCURRENCY = 8


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.corrections", description=__doc__)
    p.add_argument("--chunks", type=int, default=10_000, help="one-chunk notes per organisation")
    p.add_argument("--share", type=float, default=0.10, help="share of sources corrected")
    p.add_argument("--queries", type=int, default=300, help="timed searches per organisation")
    p.add_argument("--dimension", type=int, default=384, help="hashing embedder dimension")
    p.add_argument("--store", choices=("surrealkv", "mem"), default="surrealkv")
    p.add_argument("--seed", type=int, default=7)
    return p.parse_args(argv)



async def _owner(services: Services, name: str) -> PrincipalRecord:
    org = await services.control.create_organization(name, None, Surface.CLI)
    return await services.control.create_principal(
        org.org_id, "owner", None, Surface.CLI, org_role=OrgRole.OWNER
    )


async def _ctx(services: Services, who: PrincipalRecord) -> MemoryPolicyContext:
    """A fresh context (and audit receipt id) per request, as every surface makes one."""
    return await services.access.context_for(who, Surface.CLI, services.audit.new_id())


async def _remember(services: Services, who: PrincipalRecord, text: str) -> str:
    request = RememberRequest(org_id=who.org_id, content=text)
    return (await services.memory.remember(request, await _ctx(services, who))).source_id


async def _fill(services: Services, who: PrincipalRecord, texts: list[str]) -> list[str]:
    ids: list[str] = []
    for start in range(0, len(texts), _CONCURRENCY):
        batch = texts[start : start + _CONCURRENCY]
        done = await asyncio.gather(*(_remember(services, who, t) for t in batch))
        ids += done
        if len(ids) % 2000 < _CONCURRENCY:
            progress(f"  filled {len(ids)}/{len(texts)}")
    await services.memory.lane.drain()  # corrections meet indexed chunks, as in a settled store
    return ids


def _request(action: CorrectionAction, other: str) -> CorrectionRequest:
    if action is CorrectionAction.SUPERSEDE:
        return CorrectionRequest(action=action, replacement_id=other, reason="benchmark")
    if action is CorrectionAction.MARK_DUPLICATE:
        return CorrectionRequest(action=action, canonical_id=other)
    return CorrectionRequest(action=action, reason="benchmark")


async def _correct(
    services: Services, who: PrincipalRecord, ids: list[str], share: float
) -> dict[str, Any]:
    """Preview then apply on every tenth source (a fresh context per request, as on HTTP)."""
    step = max(1, round(1 / share))
    targets = ids[::step]
    previews: list[float] = []
    applies: list[float] = []
    for n, source_id in enumerate(targets):
        action = _ACTIONS[n % len(_ACTIONS)]
        request = _request(action, ids[(n * step + 1) % len(ids)])
        ctx = await _ctx(services, who)
        began = time.perf_counter()
        preview = await services.corrections.preview(ctx, source_id, request)
        previews.append((time.perf_counter() - began) * 1000)
        ctx = await _ctx(services, who)
        began = time.perf_counter()
        await services.corrections.apply(ctx, source_id, request, preview.preview_token)
        applies.append((time.perf_counter() - began) * 1000)
    return {"corrected": len(targets), "preview": summarize(previews), "apply": summarize(applies)}


async def _search(services: Services, who: PrincipalRecord, query: str) -> float:
    ctx = await _ctx(services, who)
    began = time.perf_counter()
    await services.memory.search(SearchRequest(org_id=who.org_id, query=query, limit=10), ctx)
    return (time.perf_counter() - began) * 1000


async def run(args: argparse.Namespace, data_dir: Path) -> dict[str, Any]:
    url = "mem://" if args.store == "mem" else f"surrealkv://{data_dir / 'data'}"
    store = make_store(url)
    services = make_services(store, InProcessIndex(), HashingEmbedder(args.dimension), "bench")
    try:
        await services.open(Surface.CLI)
        rng = random.Random(args.seed)
        texts = made_up_notes(args.chunks, rng)
        plain, corrected = await _owner(services, "plain"), await _owner(services, "corrected")
        progress(f"filling two organisations with {args.chunks} one-chunk notes each ({url})")
        began = time.perf_counter()
        await _fill(services, plain, texts)
        corrected_ids = await _fill(services, corrected, texts)
        fill_s = time.perf_counter() - began
        progress(f"correcting {args.share:.0%} of the second organisation's sources")
        timings = await _correct(services, corrected, corrected_ids, args.share)
        queries = [" ".join(rng.choice(t.split()[2:]) for _ in range(3)) for t in texts]
        queries = rng.sample(queries, args.queries)
        for q in queries[:20]:  # warm both
            await _search(services, plain, q)
            await _search(services, corrected, q)
        none_ms: list[float] = []
        some_ms: list[float] = []
        for q in queries:
            none_ms.append(await _search(services, plain, q))
            some_ms.append(await _search(services, corrected, q))
        none, some = summarize(none_ms), summarize(some_ms)
        return {
            "benchmark": "corrections",
            "chunks_per_org": args.chunks,
            "store": args.store,
            "index": "inprocess",
            "embedder": f"hashing-{args.dimension}",
            "fill_s": round(fill_s, 1),
            **timings,
            "search_none_corrected": none,
            "search_10pct_corrected": some,
            "search_p95_ratio": round(some["p95_ms"] / none["p95_ms"], 3),
            "machine": machine_info(),
            "code": code_version(),
        }
    finally:
        await services.close()


def main(argv: list[str] | None = None) -> None:
    args = _parse(argv)
    with tempfile.TemporaryDirectory(prefix="tessera-corrections-") as tmp:
        result = asyncio.run(run(args, Path(tmp)))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
