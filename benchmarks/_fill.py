"""Bulk fill: one source per real turn, its chunks, written through the one write path.

``remember`` and imports write through ``MemoryWriter`` (application.enrichment);
so does the fill, several sources per call (one store transaction), handing it
the precomputed vectors (see ``_vectors``) so every chunk is saved indexed and
the lane has nothing to do. Nothing here re-enacts the write.
"""

import asyncio
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import chain

import numpy as np

from adapters.system.ids import TimeOrderedIds
from application.enrichment.lane import EmbeddingLane
from application.memory.writer import MemoryWriter
from application.ports import Embedder, MemoryStore, RetrievalIndex
from application.ports.records import Vector
from benchmarks._variation import vary_turns
from domain.chunking import TextSpan, split_into_chunks
from domain.composition import compose_memory
from domain.models import Chunk, Source
from domain.scopes import SourceType

__all__ = [
    "ACTOR",
    "FillPlan",
    "FillStalledError",
    "FillTiming",
    "bench_writer",
    "plan_fill",
    "write_fill",
]

ACTOR = "benchmark"
#: a batch of writes taking longer than this is a hung engine, not a slow one
STALL_SECONDS = 120.0


class FillStalledError(RuntimeError):
    """The store stopped making progress during the fill."""


@dataclass(frozen=True)
class FillPlan:
    #: (turn text, its chunk spans), trimmed so the spans add up to the target
    sources: list[tuple[str, list[TextSpan]]]
    turns_used: int

    @property
    def chunk_texts(self) -> list[str]:
        return [span.text for _, spans in self.sources for span in spans]


def plan_fill(turns: Sequence[str], target_chunks: int) -> FillPlan:
    """Take turns in order until their chunks reach ``target_chunks`` exactly; past the
    real turns, varied ones (benchmarks._variation: recombined sentences, shifted numbers,
    swapped names), so a fill of a million chunks keeps real text and term statistics."""
    sources: list[tuple[str, list[TextSpan]]] = []
    total = 0
    for turn in chain(turns, vary_turns(turns)):
        if total >= target_chunks:
            break
        spans = split_into_chunks(turn)[: target_chunks - total]
        if spans:
            sources.append((turn, spans))
            total += len(spans)
    if total < target_chunks:
        raise ValueError(f"the corpus yields only {total} chunks; {target_chunks} were asked for")
    return FillPlan(sources=sources, turns_used=len(sources))


def _records(
    org_id: str, turn: str, spans: Sequence[TextSpan], vectors: np.ndarray, ids: TimeOrderedIds
) -> tuple[Source, list[Chunk], dict[str, Vector]]:
    source, chunks = compose_memory(
        new_id=ids.new_id,
        org_id=org_id,
        actor_id=ACTOR,
        content=turn,
        now=datetime.now(UTC),
        source_type=SourceType.TURN,
    )
    # the plan may keep only the first spans of the last turn, to hit the target exactly
    kept = chunks[: len(spans)]
    return source, kept, {c.content_hash: vectors[n].tolist() for n, c in enumerate(kept)}


@dataclass
class FillTiming:
    #: seconds inside the write path (store transaction + index)
    write_seconds: float = 0.0
    #: seconds spent closing and reopening the store between segments
    reopen_seconds: float = 0.0
    reopens: int = 0


def bench_writer(store: MemoryStore, index: RetrievalIndex, embedder: Embedder) -> MemoryWriter:
    """The one write path over these ports, with its own embedding lane."""
    lane = EmbeddingLane(store=store, index=index, embedder=embedder)
    return MemoryWriter(store=store, index=index, embedder=embedder, lane=lane)


async def write_fill(
    store: MemoryStore,
    index: RetrievalIndex,
    embedder: Embedder,
    org_id: str,
    plan: FillPlan,
    vectors: np.ndarray,
    concurrency: int,
    reopen_every: int = 0,
    reopen: Callable[[MemoryStore], Awaitable[MemoryStore]] | None = None,
) -> tuple[FillTiming, MemoryStore]:
    """Write every planned source; returns the timing and the store now open.

    With ``reopen_every``, the store is closed and reopened (by ``reopen``)
    each time that many more chunks have been written.
    """
    ids = TimeOrderedIds()
    timing = FillTiming()
    writer = bench_writer(store, index, embedder)
    total = len(plan.chunk_texts)
    row = written = since_reopen = 0
    next_report = 0.0
    for start in range(0, len(plan.sources), concurrency):
        if reopen is not None and reopen_every and since_reopen >= reopen_every:
            began = time.perf_counter()
            store = await reopen(store)
            writer = bench_writer(store, index, embedder)
            timing.reopen_seconds += time.perf_counter() - began
            timing.reopens += 1
            since_reopen = 0
        batch = []
        known: dict[str, Vector] = {}
        for turn, spans in plan.sources[start : start + concurrency]:
            source, chunks, vectors_of = _records(
                org_id, turn, spans, vectors[row : row + len(spans)], ids
            )
            batch.append((source, chunks))
            known.update(vectors_of)
            row += len(spans)
        count = sum(len(chunks) for _, chunks in batch)
        began = time.perf_counter()
        try:
            await asyncio.wait_for(writer.write(org_id, batch, known=known), STALL_SECONDS)
        except TimeoutError:
            raise FillStalledError(
                f"no write finished in {STALL_SECONDS:.0f} s after {written} chunks"
            ) from None
        timing.write_seconds += time.perf_counter() - began
        written += count
        since_reopen += count
        if written / total >= next_report or written == total:
            rate = written / max(timing.write_seconds, 1e-9)
            print(f"  filled {written}/{total} chunks ({rate:.0f} chunks/s)", file=sys.stderr)
            next_report += 0.1
    return timing, store
