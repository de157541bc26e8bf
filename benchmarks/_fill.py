"""Bulk fill: one source per real turn, its chunks, written with the calls remember makes.

``remember`` does: split -> embed -> ``store.save_memory(source, chunks)`` ->
``index.add(entries)``. The fill does the same store and index calls with
precomputed vectors (see ``_vectors``), several sources at a time.
"""

import asyncio
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np

from adapters.system.ids import TimeOrderedIds
from application.ports import MemoryStore, RetrievalIndex
from application.records import EmbeddedChunk, IndexEntry
from domain.chunking import TextSpan, split_into_chunks
from domain.composition import compose_memory
from domain.models import Source
from domain.scopes import SourceType

__all__ = ["ACTOR", "FillPlan", "FillStalledError", "FillTiming", "plan_fill", "write_fill"]

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
    """Take turns in order until their chunks reach ``target_chunks`` exactly."""
    sources: list[tuple[str, list[TextSpan]]] = []
    total = 0
    for turn in turns:
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
) -> tuple[Source, list[EmbeddedChunk]]:
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
    return source, [
        EmbeddedChunk(chunk=chunk, vector=vectors[n].tolist()) for n, chunk in enumerate(kept)
    ]


@dataclass
class FillTiming:
    #: seconds inside save_memory + index.add
    write_seconds: float = 0.0
    #: seconds spent closing and reopening the store between segments
    reopen_seconds: float = 0.0
    reopens: int = 0


async def write_fill(
    store: MemoryStore,
    index: RetrievalIndex,
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
    total = len(plan.chunk_texts)
    row = written = since_reopen = 0
    next_report = 0.0
    for start in range(0, len(plan.sources), concurrency):
        if reopen is not None and reopen_every and since_reopen >= reopen_every:
            began = time.perf_counter()
            store = await reopen(store)
            timing.reopen_seconds += time.perf_counter() - began
            timing.reopens += 1
            since_reopen = 0
        batch = []
        for turn, spans in plan.sources[start : start + concurrency]:
            batch.append(_records(org_id, turn, spans, vectors[row : row + len(spans)], ids))
            row += len(spans)
        entries = [IndexEntry.of(e, source=s) for s, chunks in batch for e in chunks]
        began = time.perf_counter()
        writes = asyncio.gather(*(store.save_memory(s, c) for s, c in batch))
        try:
            await asyncio.wait_for(writes, STALL_SECONDS)
        except TimeoutError:
            raise FillStalledError(
                f"no write finished in {STALL_SECONDS:.0f} s after {written} chunks"
            ) from None
        await index.add(org_id, entries)
        timing.write_seconds += time.perf_counter() - began
        written += len(entries)
        since_reopen += len(entries)
        if written / total >= next_report or written == total:
            rate = written / max(timing.write_seconds, 1e-9)
            print(f"  filled {written}/{total} chunks ({rate:.0f} chunks/s)", file=sys.stderr)
            next_report += 0.1
    return timing, store
