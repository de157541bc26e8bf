"""A search's independent steps overlap, and its answers stay what they were.

The query's embedding runs while the lexical legs run, the two lexical legs run side
by side, the query's vector legs run while the subject is embedded; the redacted count's
store read starts with the search instead of after it. All are orderings
only: the lists are the same as when each step waited for the one before.
"""

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any

import pytest

from application.memory.commands import RememberRequest, SearchRequest
from application.ports.records import Vector
from application.retrieval.found import Found
from application.retrieval.pipeline import RetrievalPipeline
from application.trust.guard import candidate_filter
from domain.models import Turn
from domain.scopes import SourceType
from tests.unit.application.conftest import Parts

ORG = "acme"
QUESTIONS = (
    "How many kayak trips did I book?",
    "Which kayak colour did I choose?",
    "What did the assistant say about tax receipts?",
)


def _vectors(parts: Parts) -> Callable[[str], Awaitable[Vector]]:
    """The query vectors a pipeline asks for, straight from the test embedder."""

    async def query_vector(text: str) -> Vector:
        (vector,) = await parts.embedder.embed([text])
        return vector

    return query_vector


async def _answers(
    parts: Parts,
    pipeline: RetrievalPipeline,
    watch: Callable[[str], Any] | None = None,
    reset: Callable[[], object] = lambda: None,
) -> list[list[Found]]:
    """Each question's answer; with ``watch``, the index's lexical legs replaced by
    ``watch(name)`` first, and ``reset`` called before each question."""
    if watch is not None:
        parts.index.lexical = watch("lexical")  # type: ignore[method-assign]
        parts.index.episode_lexical = watch("episode_lexical")  # type: ignore[method-assign]
    where = candidate_filter(parts.ctx)
    answers = []
    for question in QUESTIONS:
        reset()
        answers.append(await pipeline.run(ORG, question, 10, where))
    return answers


async def _seed(parts: Parts) -> None:
    talks = (
        [("user", "I finally bought a kayak for the lake."), ("user", "It is bright orange.")],
        [("user", "Help me sort my tax receipts."), ("assistant", "Group them by month.")],
        [("user", "The kayak trip is booked for May."), ("user", "A second trip in June.")],
    )
    for day, lines in enumerate(talks, start=1):
        await parts.service.remember(
            RememberRequest(
                org_id=ORG,
                source_type=SourceType.CONVERSATION,
                occurred_at=datetime(2031, 3, day, 9, 0, tzinfo=UTC),
                turns=[Turn(role=role, content=text) for role, text in lines],
            ),
            parts.ctx,
        )
    await parts.service.lane.drain()


async def test_the_lexical_legs_run_while_the_query_is_embedded(parts: Parts) -> None:
    await _seed(parts)
    legs: list[str] = []
    both = asyncio.Event()

    def watch(name: str) -> Any:
        leg = getattr(parts.index, name)

        async def watched(*args: Any, **kwargs: Any) -> Any:
            legs.append(name)
            if {"lexical", "episode_lexical"} <= set(legs):
                both.set()
            return await leg(*args, **kwargs)

        return watched

    async def slow_vector(text: str) -> Vector:
        # answers only once both lexical legs have started: a pipeline that awaited the
        # embedding before its legs would time out here
        await asyncio.wait_for(both.wait(), 5)
        (vector,) = await parts.embedder.embed([text])
        return vector

    expected = await _answers(
        parts, RetrievalPipeline(index=parts.index, query_vector=_vectors(parts))
    )
    overlapped = RetrievalPipeline(index=parts.index, query_vector=slow_vector)
    got = await _answers(parts, overlapped, watch, lambda: (legs.clear(), both.clear()))
    assert got == expected
    assert all(found for found in got)


async def test_the_vector_reaches_on_vector_before_the_vector_legs(parts: Parts) -> None:
    await _seed(parts)
    told: list[Vector] = []
    vector_legs = parts.index.vector

    async def vector_leg(*args: Any, **kwargs: Any) -> Any:
        assert told, "the vector legs ran before on_vector was told the query vector"
        return await vector_legs(*args, **kwargs)

    parts.index.vector = vector_leg  # type: ignore[method-assign]

    pipeline = RetrievalPipeline(index=parts.index, query_vector=_vectors(parts))
    found = await pipeline.run(
        ORG, QUESTIONS[0], 10, candidate_filter(parts.ctx), None, None, told.append
    )
    assert found and len(told) == 1


async def test_the_redacted_count_starts_with_the_search(parts: Parts) -> None:
    await _seed(parts)
    order: list[str] = []
    redacted = parts.store.redacted_sources
    chunks_with_sources = parts.store.chunks_with_sources
    lexical = parts.index.lexical

    async def counted(*args: Any, **kwargs: Any) -> Any:
        order.append("redacted")
        return await redacted(*args, **kwargs)

    async def reread(*args: Any, **kwargs: Any) -> Any:
        order.append("reread")
        return await chunks_with_sources(*args, **kwargs)

    async def lexical_leg(*args: Any, **kwargs: Any) -> Any:
        order.append("lexical")
        return await lexical(*args, **kwargs)

    parts.store.redacted_sources = counted  # type: ignore[method-assign]
    parts.store.chunks_with_sources = reread  # type: ignore[method-assign]
    parts.index.lexical = lexical_leg  # type: ignore[method-assign]
    results = await parts.service.search(SearchRequest(org_id=ORG, query=QUESTIONS[1]), parts.ctx)
    assert results.results and results.withheld_redacted == 0
    assert order == ["redacted", "lexical", "reread"]


async def test_a_failed_search_lets_its_redacted_count_finish(parts: Parts) -> None:
    await _seed(parts)
    finished: list[bool] = []
    redacted = parts.store.redacted_sources

    async def counted(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(0.05)  # still reading when the search fails
        found = await redacted(*args, **kwargs)
        finished.append(True)
        return found

    async def failing_leg(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the lexical leg failed")

    parts.store.redacted_sources = counted  # type: ignore[method-assign]
    parts.index.lexical = failing_leg  # type: ignore[method-assign]
    with pytest.raises(RuntimeError, match="lexical leg failed"):
        await parts.service.search(SearchRequest(org_id=ORG, query=QUESTIONS[1]), parts.ctx)
    assert finished == [True]  # awaited before the error left search, not cancelled


async def test_the_redacted_count_reads_an_organisation_only_once_it_is_prepared(
    parts: Parts,
) -> None:
    # an organisation's first search: on SurrealDB its tables are defined by ``prepare``,
    # and a redaction read before it failed the search (tests/e2e/test_http_trust.py)
    order: list[str] = []
    prepare = parts.store.prepare
    redacted = parts.store.redacted_sources

    async def preparing(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(0.01)  # the engine defining tables takes a while
        found = await prepare(*args, **kwargs)
        order.append("prepared")
        return found

    async def counted(*args: Any, **kwargs: Any) -> Any:
        order.append("redacted")
        return await redacted(*args, **kwargs)

    parts.store.prepare = preparing  # type: ignore[method-assign]
    parts.store.redacted_sources = counted  # type: ignore[method-assign]
    results = await parts.service.search(SearchRequest(org_id=ORG, query=QUESTIONS[1]), parts.ctx)
    assert results.results == [] and order == ["prepared", "redacted"]


async def test_the_two_lexical_legs_run_side_by_side(parts: Parts) -> None:
    await _seed(parts)
    started: set[str] = set()
    both = asyncio.Event()

    def side_by_side(name: str) -> Any:
        leg = getattr(parts.index, name)

        async def watched(*args: Any, **kwargs: Any) -> Any:
            started.add(name)
            if len(started) == 2:
                both.set()
            # a leg answers only once the other has started: a pipeline that awaited one
            # lexical leg before starting the other would time out here
            await asyncio.wait_for(both.wait(), 5)
            return await leg(*args, **kwargs)

        return watched

    pipeline = RetrievalPipeline(index=parts.index, query_vector=_vectors(parts))
    expected = await _answers(parts, pipeline)
    got = await _answers(parts, pipeline, side_by_side, lambda: (started.clear(), both.clear()))
    assert got == expected


async def test_the_query_vector_legs_run_while_the_subject_is_embedded(parts: Parts) -> None:
    await _seed(parts)
    searched: list[Vector] = []
    vector_leg = parts.index.vector
    query_done = asyncio.Event()

    async def watched_leg(org_id: str, vector: Vector, *args: Any, **kwargs: Any) -> Any:
        searched.append(vector)
        query_done.set()
        return await vector_leg(org_id, vector, *args, **kwargs)

    question = QUESTIONS[0]  # "how many": its subject is embedded too

    async def query_vector(text: str) -> Vector:
        if text != question:
            # the subject's vector waits for the query's vector leg: a pipeline that
            # embedded both before any vector leg would time out here
            await asyncio.wait_for(query_done.wait(), 5)
        (vector,) = await parts.embedder.embed([text])
        return vector

    parts.index.vector = watched_leg  # type: ignore[method-assign]
    pipeline = RetrievalPipeline(index=parts.index, query_vector=query_vector)
    found = await pipeline.run(ORG, question, 10, candidate_filter(parts.ctx))
    assert found and len(searched) == 2  # the query's vector leg, then the subject's


async def test_a_failed_embedding_cancels_the_lexical_legs_and_is_raised(parts: Parts) -> None:
    await _seed(parts)
    cancelled: list[str] = []
    lexical = parts.index.lexical

    async def slow_lexical(*args: Any, **kwargs: Any) -> Any:
        try:
            await asyncio.sleep(5)
        except asyncio.CancelledError:
            cancelled.append("lexical")
            raise
        return await lexical(*args, **kwargs)

    async def failing_vector(text: str) -> Vector:
        raise RuntimeError("the model failed")

    parts.index.lexical = slow_lexical  # type: ignore[method-assign]
    pipeline = RetrievalPipeline(index=parts.index, query_vector=failing_vector)
    with pytest.raises(RuntimeError, match="model failed"):
        await pipeline.run(ORG, QUESTIONS[1], 10, candidate_filter(parts.ctx))
    await asyncio.sleep(0)  # the cancellation reaches the leg
    assert cancelled == ["lexical"]


@pytest.mark.parametrize("vector_first", [False, True], ids=["slow model", "vector first"])
async def test_the_lexical_turns_are_read_while_the_query_is_embedded(
    parts: Parts, vector_first: bool
) -> None:
    """A slow model: the turn BM25 leg's turns are read before the vector legs run, and
    not again after. A vector made before that leg answers: nothing is read ahead. The
    answers are the same either way."""
    await _seed(parts)
    made = asyncio.Event()
    lexical_ids: list[list[str]] = []
    vector_legs: list[bool] = []
    reads: list[tuple[bool, list[str]]] = []  # (the vector legs ran yet, the turns read)
    lexical, vector = parts.index.lexical, parts.index.vector
    candidate_texts = parts.index.candidate_texts

    async def lexical_leg(*args: Any, **kwargs: Any) -> Any:
        if vector_first:
            await made.wait()
        found = await lexical(*args, **kwargs)
        lexical_ids.append([hit.item_id for hit in found])
        return found

    async def vector_leg(*args: Any, **kwargs: Any) -> Any:
        vector_legs.append(True)
        return await vector(*args, **kwargs)

    async def texts_read(org_id: str, ids: Any, where: Any) -> Any:
        reads.append((bool(vector_legs), list(ids)))
        return await candidate_texts(org_id, ids, where)

    async def query_vector(text: str) -> Vector:
        if not vector_first:
            await asyncio.sleep(0.05)  # the model's time, which the loop would spend waiting
        (made_vector,) = await parts.embedder.embed([text])
        made.set()
        return made_vector

    expected = await _answers(
        parts, RetrievalPipeline(index=parts.index, query_vector=_vectors(parts))
    )
    parts.index.lexical = lexical_leg  # type: ignore[method-assign]
    parts.index.vector = vector_leg  # type: ignore[method-assign]
    parts.index.candidate_texts = texts_read  # type: ignore[method-assign]
    for question, answer in zip(QUESTIONS, expected, strict=True):
        for seen in (lexical_ids, vector_legs, reads):
            seen.clear()
        made.clear()
        pipeline = RetrievalPipeline(index=parts.index, query_vector=query_vector)
        assert await pipeline.run(ORG, question, 10, candidate_filter(parts.ctx)) == answer
        (turns,) = lexical_ids
        ahead = [ids for ran, ids in reads if not ran]
        after = [ids for ran, ids in reads if ran]
        assert turns and after
        if vector_first:
            assert ahead == []
        else:
            assert ahead == [turns]
            assert all(not set(ids) & set(turns) for ids in after)
