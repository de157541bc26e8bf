"""Where an organisation's first search spends its time: when each stage starts and
ends, from the search's start (medians over the questions), and what waits for what.

    python -m benchmarks.search_timeline --questions 30 [--storage disk|mem|memory]

Each question's haystack (LongMemEval, stratified order) is remembered into a fresh
organisation as ``benchmarks.vs_mem0`` remembers Tessera's side (cached document
vectors; the question's vector made live by the offline model), and the question is
searched once: the organisation's first search, the one ``vs_mem0`` times. The stages
are methods of the search path wrapped for the run only (``STAGES``): the query's
vector as the loop asks for it and gets it back, the model's own run on its thread,
the legs, the read-ahead, the expansion, the ranker, the re-read of the shown chunks
under the policy; and each store query the search sends, by its operation. A stage
entered more than once a search spans its first start to its last end; a run on one
thread (the model, the ranker) also gives that thread's CPU a call, so a run slower
than its CPU waited for a core or the interpreter. A store query a background task
began before the search shows a negative start. ``benchmarks.latency --profile``
says where CPU goes; this says in which order and beside what. Progress on stderr;
the table on stdout, then one JSON object.
"""

import argparse
import asyncio
import contextlib
import functools
import importlib
import inspect
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import msgspec

from application.memory.commands import SearchRequest
from application.memory.service import MemoryService
from benchmarks._lme_run import owner_context

__all__ = ["STAGES", "Stage", "Timeline", "instrumented", "main", "summary", "timed_searches"]


class Stage(msgspec.Struct, frozen=True):
    """A method of the search path: ``module:Class.method``, and its name in the table.
    ``store``: the store's query runner, one stage per operation it names."""

    target: str
    name: str
    store: bool = False


STAGES: tuple[Stage, ...] = (
    Stage("application.enrichment.embedding:QueryVectorCache.vector_for", "query vector"),
    Stage("adapters.embedders.onnx_minilm:OnnxEmbedder.embed_queries_sync", "model run"),
    Stage("application.retrieval.pipeline:RetrievalPipeline._legs", "legs"),
    Stage("application.retrieval.pipeline:RetrievalPipeline._read_ahead", "read-ahead"),
    Stage("application.retrieval.pipeline:RetrievalPipeline._expand", "expansion"),
    Stage("application.retrieval.pipeline:RetrievalPipeline._rank", "ranker"),
    Stage("application.retrieval.recall:Recall.resolve", "re-read under the policy"),
    Stage("adapters.surreal.connection:SurrealConnection._run", "store", store=True),
)


class _Span(msgspec.Struct):
    start: float
    end: float
    cpu: float | None
    count: int


class Timeline:
    """The spans of the search being timed, in ms from its start (one search at a time)."""

    def __init__(self) -> None:
        self._zero: float | None = None
        self.spans: dict[str, _Span] = {}

    def begin(self) -> None:
        self._zero = time.perf_counter()
        self.spans = {}

    def end(self) -> dict[str, _Span]:
        self._zero = None
        return self.spans

    def note(self, name: str, started: float, cpu: float | None) -> None:
        if self._zero is None:
            return
        start, end = (started - self._zero) * 1000, (time.perf_counter() - self._zero) * 1000
        span = self.spans.get(name)
        if span is None:
            self.spans[name] = _Span(start, end, cpu, 1)
            return
        span.end, span.count = end, span.count + 1
        if cpu is not None:
            span.cpu = (span.cpu or 0.0) + cpu


def _resolve(stage: Stage) -> tuple[type, str]:
    """The class that defines the stage's method (a base class, if inherited)."""
    module_name, qualified = stage.target.split(":")
    class_name, method = qualified.rsplit(".", 1)
    cls = getattr(importlib.import_module(module_name), class_name)
    owner = next((k for k in cls.__mro__ if callable(k.__dict__.get(method))), None)
    if owner is None:
        raise AttributeError(f"{stage.target}: no such method (the search path moved)")
    return owner, method


def _wrapped(original: Callable[..., Any], stage: Stage, timeline: Timeline) -> Any:
    def name_of(kwargs: dict[str, Any]) -> str:
        if not stage.store:
            return stage.name
        return f"{stage.name}: {kwargs.get('operation', '?')}"

    if inspect.iscoroutinefunction(original):

        @functools.wraps(original)
        async def run_async(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return await original(*args, **kwargs)
            finally:
                timeline.note(name_of(kwargs), started, None)

        return run_async

    @functools.wraps(original)
    def run(*args: Any, **kwargs: Any) -> Any:
        started, cpu = time.perf_counter(), time.thread_time()
        try:
            return original(*args, **kwargs)
        finally:
            timeline.note(name_of(kwargs), started, (time.thread_time() - cpu) * 1000)

    return run


@contextlib.contextmanager
def instrumented(timeline: Timeline, stages: Sequence[Stage] = STAGES) -> Iterator[None]:
    """The stages' methods wrapped to note their spans on ``timeline``, put back after."""
    resolved = [(stage, *_resolve(stage)) for stage in stages]  # every name checked first
    originals: list[tuple[type, str, Any]] = []
    try:
        for stage, cls, method in resolved:
            original = cls.__dict__[method]
            originals.append((cls, method, original))
            setattr(cls, method, _wrapped(original, stage, timeline))
        yield
    finally:
        for cls, method, original in reversed(originals):
            setattr(cls, method, original)


async def timed_searches(
    service: MemoryService,
    searches: Sequence[Callable[[], Awaitable[SearchRequest]]],
    timeline: Timeline,
    after: Callable[[str], Awaitable[None]] | None = None,
) -> list[dict[str, _Span]]:
    """Per search: its organisation filled and its request made by the callable (not
    timed), then the request searched once as the organisation's owner, timed;
    ``after(org)`` once it is done (not timed)."""
    out = []
    for prepare in searches:
        request = await prepare()
        timeline.begin()
        started = time.perf_counter()
        await service.search(request, owner_context(request.org_id))
        timeline.note("search", started, None)
        out.append(timeline.end())
        if after is not None:
            await after(request.org_id)
    return out


def summary(runs: Sequence[dict[str, _Span]]) -> list[dict[str, Any]]:
    """Per stage, in the order of its median start: medians of start, end, span, CPU a
    call (a stage entered twice a search, as the model for a counting question's subject,
    spends its CPU over both) and calls."""

    def median(values: list[float]) -> float:
        return round(statistics.median(values), 2)

    names = {name for run in runs for name in run}
    rows = []
    for name in names:
        spans = [run[name] for run in runs if name in run]
        cpus = [s.cpu / s.count for s in spans if s.cpu is not None]
        rows.append(
            {
                "stage": name,
                "searches": len(spans),
                "start_ms": median([s.start for s in spans]),
                "end_ms": median([s.end for s in spans]),
                "span_ms": median([s.end - s.start for s in spans]),
                "cpu_per_call_ms": median(cpus) if cpus else None,
                "calls": median([float(s.count) for s in spans]),
            }
        )
    return sorted(rows, key=lambda r: (r["start_ms"], r["end_ms"]))


def _table(rows: list[dict[str, Any]]) -> str:
    lines = [
        f"{'stage':42} {'searches':>8} {'start':>7} {'end':>7} {'span':>7} {'cpu/call':>8} calls",
    ]
    for r in rows:
        cpu = "" if r["cpu_per_call_ms"] is None else f"{r['cpu_per_call_ms']:7.2f}"
        lines.append(
            f"{r['stage']:42} {r['searches']:8d} {r['start_ms']:7.2f} {r['end_ms']:7.2f} "
            f"{r['span_ms']:7.2f} {cpu:>8} {r['calls']:g}"
        )
    return "\n".join(lines)


def _parse(argv: list[str] | None) -> argparse.Namespace:
    from benchmarks._lme_data import DEFAULT_LME
    from benchmarks.longmemeval_prefill import CACHE_DIR

    p = argparse.ArgumentParser(prog="python -m benchmarks.search_timeline", description=__doc__)
    p.add_argument("--data", type=Path, default=DEFAULT_LME, help="LongMemEval .json or .json.xz")
    p.add_argument("--questions", type=int, default=30, help="first N in stratified order")
    p.add_argument("--storage", choices=["disk", "mem", "memory"], default="disk")
    p.add_argument("--cache-dir", type=Path, default=CACHE_DIR, help="document vector cache")
    return p.parse_args(argv)


async def _run(args: argparse.Namespace) -> dict[str, Any]:
    from application.retrieval.pipeline import RetrievalMode
    from benchmarks._embed_cache import CachedEmbedder, DiskEmbeddingCache
    from benchmarks._lme_data import chunk_texts, load_questions, stratified
    from benchmarks._lme_run import _ingest, parse_when
    from benchmarks._stats import machine_info
    from benchmarks._wiring import make_embedder, make_index
    from benchmarks.longmemeval import SEARCH_LIMIT, _service, _warm_up
    from benchmarks.vs_mem0 import _tessera_store

    items = stratified(load_questions(args.data))[: args.questions]
    model = make_embedder()
    cached = CachedEmbedder(model, DiskEmbeddingCache(args.cache_dir, model.space))
    load_start = os.getloadavg()
    timeline = Timeline()
    # wrapped before the service is built: it holds some of the stages as bound methods
    with instrumented(timeline), tempfile.TemporaryDirectory(prefix="search-timeline-") as where:
        store = _tessera_store(args.storage, Path(where) / "db")
        index = make_index("inprocess", store)
        service = _service(store, index, cached, RetrievalMode.RANKED)
        try:
            await _warm_up({"tessera": service})

            def prepared(item: dict[str, Any]) -> Callable[[], Awaitable[SearchRequest]]:
                async def prepare() -> SearchRequest:
                    await cached.prefill(chunk_texts(item))  # a cold cache is no search's cost
                    org = f"lme-{item['question_id']}-{uuid.uuid4().hex[:8]}"
                    await _ingest(service, org, item)
                    print(".", end="", file=sys.stderr, flush=True)
                    return SearchRequest(
                        org_id=org,
                        query=item["question"],
                        limit=SEARCH_LIMIT,
                        as_of=parse_when(item["question_date"]),
                    )

                return prepare

            runs = await timed_searches(
                service,
                [prepared(item) for item in items],
                timeline,
                after=service.drop_organization,
            )
        finally:
            await service.close()
    print(file=sys.stderr)
    rows = summary(runs)
    print(_table(rows))
    return {
        "questions": len(items),
        "storage": args.storage,
        "stages": rows,
        "load_avg_start": [round(x, 2) for x in load_start],
        "load_avg_end": [round(x, 2) for x in os.getloadavg()],
        "machine": machine_info(),
    }


def main(argv: list[str] | None = None) -> None:
    args = _parse(argv)
    print(json.dumps(asyncio.run(_run(args))))


if __name__ == "__main__":
    main()
