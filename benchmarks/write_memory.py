"""The service's memory as turns are remembered into a restored store.

    python -m benchmarks.write_memory --data-dir /path/copy-of-filled [--steps 1,39,400,2000]

The RSS figures of the scale runs are those of a service that opened its
snapshot and answered searches. A service that also takes writes holds more:
the embedding lane's model session and its working memory, the rows appended
to the in-process index, the engine's write path. This opens a filled store as
``tessera serve`` would (one search first), then remembers LongMemEval turns
as conversations of up to 40 turns, in the steps given (each step's turns
embedded before it is measured), and after each step reports the process's
anonymous and file-backed resident memory (``/proc``, 3 s after the step and
one search) and the in-process index's own estimate of what it holds
(``adapters/inprocess/footprint.py``).

It writes to the store and its snapshot: run it on a copy of the folder, a
fresh one for each run. Prints one JSON object.
"""

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

from benchmarks._data import DATA_HELP, load_corpus
from benchmarks._footprint import anon_rss_mb, file_rss_mb
from benchmarks._stats import code_version, machine_info, progress

__all__ = ["conversations", "main"]

#: turns a remembered conversation holds at most
_TURNS = 40


def _parse(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m benchmarks.write_memory", description=__doc__)
    p.add_argument("--data-dir", type=Path, required=True, help="a copy: holds db/ and db.index/")
    p.add_argument("--org", default="bench")
    p.add_argument("--data", type=Path, help=DATA_HELP)
    p.add_argument("--steps", default="1,39,400,2000,4000", help="turns remembered per step")
    return p.parse_args(argv)


def conversations(turns: list[str], start: int, count: int) -> list[list[str]]:
    """``count`` turns from ``start`` (wrapping), in conversations of up to ``_TURNS``."""
    picked = [turns[(start + n) % len(turns)] for n in range(count)]
    return [picked[n : n + _TURNS] for n in range(0, len(picked), _TURNS)]


def _memory(index: Any, org: str) -> dict[str, Any]:
    from adapters.inprocess.footprint import footprint

    parts = footprint(index._orgs[org])
    return {
        "anon_mb": anon_rss_mb(),
        "file_mb": file_rss_mb(),
        "index_estimate_mb": {k: round(v / 2**20, 1) for k, v in parts.items() if v >= 2**20},
    }


async def _main(args: argparse.Namespace) -> dict[str, Any]:
    from application.memory.commands import RememberRequest, SearchRequest
    from benchmarks._phases import SEARCH_LIMIT, authorized, time_open
    from benchmarks._wiring import make_embedder, make_index, make_services, make_store, owner_key
    from domain.models import Turn
    from domain.scopes import SourceType
    from domain.visible_text import has_visible_text

    steps = [int(s) for s in args.steps.split(",") if s.strip()]
    corpus = load_corpus(args.data)
    turns = [t for t in corpus.turns if has_visible_text(t)]
    store = make_store(f"surrealkv://{args.data_dir / 'db'}", native_search=False)
    index = make_index("inprocess", store)
    services = make_services(store, index, make_embedder(), args.org)
    open_s = await time_open(services)
    policy = await authorized(services, await owner_key(services))

    async def settled(label: str, remembered: int, question: int) -> dict[str, Any]:
        request = SearchRequest(
            org_id=args.org, query=corpus.questions[question], limit=SEARCH_LIMIT
        )
        await services.memory.search(request, policy)
        await asyncio.sleep(3)  # a trim of the heap runs in a thread of its own
        figures = {"after": label, "turns_remembered": remembered, **_memory(index, args.org)}
        progress(f"{label}: anonymous {figures['anon_mb']} MB")
        return figures

    out: dict[str, Any] = {
        "benchmark": "write_memory",
        "machine": machine_info(),
        "code": code_version(),
        "open_s": round(open_s, 1),
        "rows_at_open": index._orgs[args.org].size,  # type: ignore[attr-defined]
        "steps": [await settled("open", 0, 0)],
    }
    done = 0
    for number, count in enumerate(steps, start=1):
        began = time.perf_counter()
        for conversation in conversations(turns, done, count):
            request = RememberRequest(
                org_id=args.org,
                turns=[Turn(role="user", content=text) for text in conversation],
                source_type=SourceType.CONVERSATION,
            )
            await services.memory.remember(request, policy)
        await services.memory.lane.drain()
        done += count
        step = await settled(f"step {number}", done, number)
        step["seconds"] = round(time.perf_counter() - began, 1)
        out["steps"].append(step)
    first = out["steps"][0]["anon_mb"]
    last = out["steps"][-1]["anon_mb"]
    if first is not None and last is not None:
        out["anon_growth_mb"] = round(last - first, 1)
    await services.close()  # it saves the index into the copy
    return out


def main(argv: list[str] | None = None) -> None:
    args = _parse(argv)
    print(json.dumps(asyncio.run(_main(args))))


if __name__ == "__main__":
    main()
