"""Memory workspace render benchmark: home, search and inspect at N chunks.

    python -m benchmarks.web_render --chunks 10000

The home organisation's owner gets N one-chunk notes through ``remember_many`` on
embedded SurrealDB (surrealkv by default) with the in-process index, as
``tessera serve`` runs them; a few hundred of them are captured through the
workspace's own form, so the home page has recent captures and recalls to
show. The owner signs in through the sign-in form, then each page is
requested through the real Litestar app (in process, ASGI, no socket) and
timed from request to the last byte: the policy checks, the use cases, the
template and the headers. ``home_follow_up`` times home's follow-up use case
alone (drafts with gaps, sources to review), interleaved with the pages: its
share of the home page. The embedder is the hashing embedder, so the
query's embedding costs next to nothing and the figures exclude it, as the
target asks (p95 <= 100 ms).

Progress goes to stderr; the figures are one JSON object on stdout.
"""

import argparse
import asyncio
import json
import random
import re
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

from adapters.inmemory.hashing_embedder import HashingEmbedder
from adapters.inprocess.index import InProcessIndex
from application.memory.commands import RememberRequest
from application.services import Services
from application.trust.records import PrincipalRecord
from benchmarks._notes import made_up_notes
from benchmarks._stats import code_version, machine_info, progress, summarize
from benchmarks._wiring import make_services, make_store, owner_key
from domain.policy import Surface
from entrypoints.http.app import create_app

__all__ = ["main"]

_BATCH = 200
_FORM_CAPTURES = 200


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.web_render", description=__doc__)
    p.add_argument("--chunks", type=int, default=10_000, help="one-chunk notes in the store")
    p.add_argument("--requests", type=int, default=200, help="timed requests per page")
    p.add_argument("--dimension", type=int, default=384, help="hashing embedder dimension")
    p.add_argument("--store", choices=("surrealkv", "mem"), default="surrealkv")
    p.add_argument("--seed", type=int, default=7)
    return p.parse_args(argv)



async def _fill(services: Services, who: PrincipalRecord, texts: list[str]) -> None:
    """In batches, through the write path imports use (one transaction per batch)."""
    for start in range(0, len(texts), _BATCH):
        ctx = await services.access.context_for(who, Surface.CLI, services.audit.new_id())
        batch = [
            RememberRequest(org_id=who.org_id, content=t) for t in texts[start : start + _BATCH]
        ]
        await services.memory.remember_many(who.org_id, batch, ctx)
        if (start + _BATCH) % 2000 < _BATCH:
            progress(f"  filled {start + _BATCH}/{len(texts)}")
    await services.memory.lane.drain()


async def _timed(client: httpx.AsyncClient, path: str) -> float:
    began = time.perf_counter()
    answer = await client.get(path)
    elapsed = (time.perf_counter() - began) * 1000
    assert answer.status_code == 200, (path, answer.status_code)
    return elapsed


async def _follow_up(services: Services, who: PrincipalRecord) -> float:
    """Home's follow-up use case alone: its share of the home page."""
    ctx = await services.access.context_for(who, Surface.WEB, services.audit.new_id())
    began = time.perf_counter()
    await services.follow_up.suggest(ctx)
    return (time.perf_counter() - began) * 1000


async def _pages(
    client: httpx.AsyncClient,
    texts: list[str],
    ids: list[str],
    n: int,
    rng: random.Random,
    follow_up: Callable[[], Awaitable[float]],
) -> dict[str, Any]:
    queries = [" ".join(rng.choice(t.split()[2:]) for _ in range(3)) for t in rng.sample(texts, n)]
    paths = {
        "home": ["/memory"] * n,
        "search": ["/memory/search?q=" + quote(q) for q in queries],
        "inspect": [f"/memory/sources/{rng.choice(ids)}" for _ in range(n)],
    }
    for each in paths.values():  # warm every page
        for path in each[:10]:
            await _timed(client, path)
    samples: dict[str, list[float]] = {name: [] for name in [*paths, "home_follow_up"]}
    for i in range(n):  # interleaved, so machine noise hits every page alike
        for name, each in paths.items():
            samples[name].append(await _timed(client, each[i]))
        samples["home_follow_up"].append(await follow_up())
    return {name: summarize(values) for name, values in samples.items()}


async def run(args: argparse.Namespace, data_dir: Path) -> dict[str, Any]:
    url = "mem://" if args.store == "mem" else f"surrealkv://{data_dir / 'data'}"
    services = make_services(
        make_store(url), InProcessIndex(), HashingEmbedder(args.dimension), "bench"
    )
    await services.open(Surface.CLI)
    app = create_app(services, surface=Surface.API)
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
    client = httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1")
    try:
        rng = random.Random(args.seed)
        texts = made_up_notes(args.chunks, rng)
        owner = await services.control.principal(services.home_org_id, "owner")
        progress(f"filling {args.chunks} one-chunk notes ({url})")
        began = time.perf_counter()
        await _fill(services, owner, texts[_FORM_CAPTURES:])
        signed = await client.post("/memory/sign-in", data={"api_key": await owner_key(services)})
        assert signed.status_code == 303, (signed.status_code, signed.text[-2000:])
        home = await client.get("/memory")
        found = re.search(r'name="csrf" value="([^"]+)"', home.text)
        assert found is not None, (home.status_code, home.text[-2000:])
        ids: list[str] = []
        for text in texts[:_FORM_CAPTURES]:  # through the workspace's form: recent captures
            done = await client.post(
                "/memory/remember", data={"csrf": found.group(1), "content": text}
            )
            ids.append(done.headers["location"].split("/")[-1].split("?")[0])
        fill_s = time.perf_counter() - began
        progress(f"timing {args.requests} requests per page")
        pages = await _pages(
            client, texts, ids, args.requests, rng, lambda: _follow_up(services, owner)
        )
        return {
            "benchmark": "web_render",
            "chunks": args.chunks,
            "store": args.store,
            "index": "inprocess",
            "embedder": f"hashing-{args.dimension} (query embedding excluded)",
            "fill_s": round(fill_s, 1),
            **pages,
            "target_p95_ms": 100,
            "met": all(pages[p]["p95_ms"] <= 100 for p in ("home", "search", "inspect")),
            "machine": machine_info(),
            "code": code_version(),
        }
    finally:
        await client.aclose()
        await services.close()


def main(argv: list[str] | None = None) -> None:
    args = _parse(argv)
    with tempfile.TemporaryDirectory(prefix="tessera-web-render-") as tmp:
        result = asyncio.run(run(args, Path(tmp)))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
