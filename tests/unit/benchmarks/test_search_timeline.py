"""The search timeline: the stages it wraps exist, are noted in order, and are put back."""

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from adapters.inmemory.hashing_embedder import HashingEmbedder
from adapters.inmemory.memory_store import InMemoryMemoryStore
from adapters.inprocess.index import InProcessIndex
from application.memory.commands import RememberRequest, SearchRequest
from application.retrieval.pipeline import RetrievalMode, RetrievalPipeline
from application.retrieval.recall import Recall
from benchmarks._lme_run import owner_context
from benchmarks.search_timeline import (
    STAGES,
    Stage,
    Timeline,
    instrumented,
    summary,
    timed_searches,
)
from entrypoints.container import make_service

_NOTES = (
    "The harbour ferry leaves at seven on weekdays.",
    "Maya's sister plays the cello in the city orchestra.",
    "Sam adopted a dog called Biscuit last spring.",
)


async def _timeline_of(questions: list[str]) -> list[dict[str, Any]]:
    timeline = Timeline()
    with instrumented(timeline):
        service = make_service(
            InMemoryMemoryStore(), InProcessIndex(), HashingEmbedder(), RetrievalMode.RANKED
        )

        def prepared(n: int, question: str) -> Callable[[], Awaitable[SearchRequest]]:
            async def prepare() -> SearchRequest:
                org = f"timeline-{n}"
                for note in _NOTES:
                    await service.remember(
                        RememberRequest(org_id=org, content=note), owner_context(org)
                    )
                return SearchRequest(org_id=org, query=question)

            return prepare

        runs = await timed_searches(
            service,
            [prepared(n, q) for n, q in enumerate(questions)],
            timeline,
            after=service.drop_organization,
        )
        await service.close()
    return summary(runs)


def test_each_search_notes_its_stages_in_the_order_the_search_runs_them() -> None:
    rows = asyncio.run(_timeline_of(["When does the ferry leave?", "Who plays the cello?"]))
    by_stage = {r["stage"]: r for r in rows}
    for stage in ("search", "query vector", "legs", "ranker", "re-read under the policy"):
        assert by_stage[stage]["searches"] == 2, stage
    # the ranker ranks what the legs found; the policy re-reads what the ranker chose
    assert by_stage["ranker"]["start_ms"] >= by_stage["legs"]["end_ms"]
    assert by_stage["re-read under the policy"]["start_ms"] >= by_stage["ranker"]["end_ms"]
    assert by_stage["search"]["end_ms"] >= by_stage["re-read under the policy"]["end_ms"]
    # a run on one thread gives its CPU; an awaited stage does not
    assert by_stage["ranker"]["cpu_per_call_ms"] is not None
    assert by_stage["legs"]["cpu_per_call_ms"] is None
    # rows in the order of their starts
    starts = [r["start_ms"] for r in rows]
    assert starts == sorted(starts)


def test_nothing_is_noted_outside_a_timed_search_and_the_methods_are_put_back() -> None:
    before = (RetrievalPipeline._rank, Recall.resolve)
    timeline = Timeline()
    with instrumented(timeline):
        assert RetrievalPipeline._rank is not before[0]
        timeline.note("ranker", 0.0, None)  # no search begun: not noted
        assert timeline.spans == {}
    assert (RetrievalPipeline._rank, Recall.resolve) == before


def test_a_stage_the_search_path_no_longer_has_fails_and_leaves_nothing_wrapped() -> None:
    moved = Stage("application.retrieval.pipeline:RetrievalPipeline._gone", "gone")
    with pytest.raises(AttributeError, match="_gone"), instrumented(Timeline(), [*STAGES, moved]):
        pass
    assert RetrievalPipeline._rank.__module__ == "application.retrieval.pipeline"
    assert not hasattr(RetrievalPipeline._rank, "__wrapped__")


def test_a_stage_entered_twice_spans_its_first_start_to_its_last_end() -> None:
    timeline = Timeline()
    timeline.begin()
    zero = timeline._zero
    assert zero is not None
    timeline.note("store: x", zero, 1.0)
    first_end = timeline.spans["store: x"].end
    timeline.note("store: x", zero + 0.0001, 2.0)
    span = timeline.end()["store: x"]
    assert span.count == 2 and span.cpu == 3.0
    assert span.start == 0.0 and span.end >= first_end
    # the table gives the CPU a call, not the two calls' sum
    (row,) = summary([{"store: x": span}])
    assert row["cpu_per_call_ms"] == 1.5 and row["calls"] == 2
