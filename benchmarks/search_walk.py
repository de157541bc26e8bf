"""The path a question takes through one search: the calls of the project's code that
receive it, in order, and how often the walk enters each file.

    python -m benchmarks.search_walk [--mode ranked] [--show]

A stop is a call of a function in domain/, application/, adapters/ or entrypoints/ one
of whose arguments is the question: the string itself, or an object that holds it in a
field (a request, a question profile). A coroutine resumed after an ``await`` is the same
stop. The walk enters a file when a stop's file differs from the stop before it, so a
file entered many times is one the question zig-zags through. The service is the
composition root's, over the in-memory reference adapters and the hashing embedder, with
a few notes and a conversation remembered; the traced search follows a warm-up search.
Figures are one JSON object on stdout; ``--show`` prints the stops first.
"""

import argparse
import asyncio
import dataclasses
import json
import sys
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

from adapters.inmemory.hashing_embedder import HashingEmbedder
from adapters.inmemory.memory_store import InMemoryMemoryStore
from adapters.inprocess.index import InProcessIndex
from application.memory.commands import RememberRequest, SearchRequest
from application.memory.service import MemoryService
from application.retrieval.pipeline import RetrievalMode
from benchmarks._lme_run import owner_context
from domain.models import Turn
from domain.scopes import SourceType
from entrypoints.container import make_service

__all__ = ["Walk", "main", "walk"]

ROOT = Path(__file__).resolve().parents[1]
_LAYERS = tuple(
    str(ROOT / layer) + "/" for layer in ("domain", "application", "adapters", "entrypoints")
)
ORG = "walk"
QUESTION = "What did Maya name the cat she adopted from the shelter?"
_NOTES = (
    "The harbour ferry leaves at seven on weekdays.",
    "Maya's sister plays the cello in the city orchestra.",
    "Sam adopted a dog called Biscuit last spring.",
)
_TALK = (
    ("Sam", "Did you end up adopting the cat from the shelter?"),
    ("Maya", "Yes!! We called him Pixel, he is tiny."),
    ("Sam", "Pixel is a great name. Is he settling in?"),
    ("Maya", "He sleeps on my keyboard all day."),
)


@dataclasses.dataclass(frozen=True)
class Walk:
    stops: list[str]  # "path:function", in order
    files: list[str]  # the file of each stop

    def summary(self) -> dict[str, Any]:
        entries: Counter[str] = Counter()
        for i, path in enumerate(self.files):
            if i == 0 or self.files[i - 1] != path:
                entries[path] += 1
        return {
            "stops": len(self.stops),
            "files": len(set(self.files)),
            "file_entries": sum(entries.values()),
            "most_entered": entries.most_common(5),
        }


def _holds(value: object, question: str) -> bool:
    if isinstance(value, str):
        return value == question
    if isinstance(value, type):
        return False
    if dataclasses.is_dataclass(value):
        fields = [getattr(value, f.name, None) for f in dataclasses.fields(value)]
    else:
        names = getattr(type(value), "__struct_fields__", ())
        fields = [getattr(value, n, None) for n in names]
    return any(isinstance(f, str) and f == question for f in fields)


def _receives(frame: FrameType, question: str) -> bool:
    code = frame.f_code
    count = code.co_argcount + code.co_kwonlyargcount
    args = [frame.f_locals.get(name) for name in code.co_varnames[:count]]
    return any(_holds(a, question) for a in args)


async def _service_with_memory(mode: RetrievalMode) -> MemoryService:
    service = make_service(InMemoryMemoryStore(), InProcessIndex(), HashingEmbedder(), mode)
    ctx = owner_context(ORG)
    for note in _NOTES:
        await service.remember(RememberRequest(org_id=ORG, content=note), ctx)
    turns = [
        Turn(role="user" if who == "Sam" else "assistant", content=words, speaker=who)
        for who, words in _TALK
    ]
    await service.remember(
        RememberRequest(org_id=ORG, turns=turns, source_type=SourceType.CONVERSATION), ctx
    )
    return service


async def walk(mode: RetrievalMode = RetrievalMode.RANKED) -> Walk:
    """The stops of one search for ``QUESTION``, after a warm-up search."""
    service = await _service_with_memory(mode)
    ctx = owner_context(ORG)
    await service.search(SearchRequest(org_id=ORG, query="harbour ferry times"), ctx)
    stops: list[str] = []
    files: list[str] = []
    seen: list[FrameType] = []  # held, so a frame's id is not reused by another

    def profile(frame: FrameType, event: str, _arg: object) -> None:
        if event != "call" or not frame.f_code.co_filename.startswith(_LAYERS):
            return
        if any(frame is s for s in seen) or not _receives(frame, QUESTION):
            return
        seen.append(frame)
        path = str(Path(frame.f_code.co_filename).relative_to(ROOT))
        stops.append(f"{path}:{frame.f_code.co_qualname}")
        files.append(path)

    request = SearchRequest(org_id=ORG, query=QUESTION)
    sys.setprofile(profile)
    try:
        found = await service.search(request, ctx)
    finally:
        sys.setprofile(None)
    if not found.results:
        raise AssertionError("the traced search found nothing: the walk would be too short")
    return Walk(stops=stops, files=files)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m benchmarks.search_walk")
    p.add_argument("--mode", default="ranked", choices=[m.value for m in RetrievalMode])
    p.add_argument("--show", action="store_true", help="print each stop before the figures")
    args = p.parse_args(argv)
    traced = asyncio.run(walk(RetrievalMode(args.mode)))
    if args.show:
        for i, stop in enumerate(traced.stops, start=1):
            print(f"{i:3d} {stop}")
    print(json.dumps({"mode": args.mode, "question": QUESTION, **traced.summary()}))


if __name__ == "__main__":
    main()
