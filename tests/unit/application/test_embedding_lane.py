"""The embedding lane and the one write path, on the reference adapters (fakes, not mocks)."""

import asyncio
import logging
from collections.abc import Sequence
from datetime import UTC, datetime

import pytest

from adapters.inmemory.hashing_embedder import HashingEmbedder
from adapters.inmemory.memory_store import InMemoryMemoryStore
from adapters.inprocess.index import InProcessIndex
from application.enrichment.lane import EmbeddingLane, LaneSettings
from application.indexing.readiness import OrgReadiness
from application.memory.writer import MemoryWriter
from application.ports.records import CandidateFilter, Vector
from domain.composition import compose_memory
from domain.errors import TesseraError, UpstreamError
from domain.models import Chunk, Source
from domain.reasons import ReasonCode

ORG = "lane-org"
ALL = CandidateFilter()
NOW = datetime(2031, 5, 1, 12, 0, tzinfo=UTC)


class _Flaky:
    """Fails the first ``failures`` calls, then embeds like the hashing embedder."""

    def __init__(self, failures: int) -> None:
        self._inner = HashingEmbedder(64)
        self.space = self._inner.space
        self.failures = failures
        self.calls = 0
        self.texts: list[str] = []

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        self.calls += 1
        if self.calls <= self.failures:
            raise RuntimeError("model unavailable")
        self.texts.extend(texts)
        return await self._inner.embed(texts)


class _Rig:
    def __init__(self, embedder: _Flaky, settings: LaneSettings | None = None) -> None:
        self.store = InMemoryMemoryStore()
        self.embedder = embedder
        self.settings = settings
        self.restart()

    def restart(self) -> None:
        """A new process on the same store: a fresh index and lane."""
        self.index = InProcessIndex()
        self.lane = EmbeddingLane(
            store=self.store, index=self.index, embedder=self.embedder, settings=self.settings
        )
        self.writer = MemoryWriter(
            store=self.store, index=self.index, embedder=self.embedder, lane=self.lane
        )

    async def open(self) -> None:
        await OrgReadiness(self.store, self.index, self.embedder).ensure(ORG)

    async def vector_hits(self, text: str) -> list[str]:
        (query,) = await self.embedder._inner.embed([text])
        return [h.item_id for h in await self.index.vector(ORG, query, 10, ALL)]


def _memory(n: int, text: str) -> tuple[Source, list[Chunk]]:
    counter = iter(range(10_000))
    return compose_memory(
        new_id=lambda: f"m{n:04d}x{next(counter):03d}",
        org_id=ORG,
        actor_id="tester",
        content=text,
        now=NOW,
    )


async def test_a_write_is_lexical_at_once_and_a_vector_candidate_after_the_lane() -> None:
    rig = _Rig(_Flaky(0))
    await rig.open()
    outcome = await rig.writer.write(ORG, [_memory(1, "the lighthouse keeper logs storms")])
    assert outcome.pending == 1
    hits = await rig.index.lexical(ORG, "lighthouse", 5, ALL)
    assert [h.item_id for h in hits] == ["m0001x001"]
    assert await rig.vector_hits("the lighthouse keeper logs storms") == []
    await rig.lane.drain()
    assert await rig.vector_hits("the lighthouse keeper logs storms") == ["m0001x001"]
    assert (await rig.store.embedding_counts(ORG)).pending == 0
    await rig.lane.stop()


async def test_wait_indexed_returns_once_the_vector_is_searchable() -> None:
    rig = _Rig(_Flaky(0))
    await rig.open()
    outcome = await rig.writer.write(ORG, [_memory(1, "orange kayak on the lake")], wait=True)
    assert outcome.pending == 0
    assert await rig.vector_hits("orange kayak on the lake") == ["m0001x001"]
    await rig.lane.stop()


async def test_a_restart_resumes_the_pending_chunks() -> None:
    rig = _Rig(_Flaky(0))
    await rig.open()
    await rig.writer.write(ORG, [_memory(n, f"note number {n} about tea") for n in range(3)])
    await rig.lane.stop()  # the process stops before the lane ran
    assert (await rig.store.embedding_counts(ORG)).pending == 3
    assert rig.embedder.calls == 0

    rig.restart()
    await rig.open()  # the index is rebuilt from the store: the pending rows are lexical
    assert len(await rig.index.lexical(ORG, "tea", 10, ALL)) == 3
    rig.lane.resume(ORG)
    await rig.lane.drain()
    assert (await rig.store.embedding_counts(ORG)).pending == 0
    hits = await rig.vector_hits("note number 2 about tea")
    assert hits[0] == "m0002x001" and sorted(hits) == ["m0000x001", "m0001x001", "m0002x001"]
    await rig.lane.stop()


async def test_a_failing_model_is_retried_with_backoff_then_succeeds() -> None:
    rig = _Rig(_Flaky(2), LaneSettings(backoff=0.001, max_attempts=5))
    await rig.open()
    await rig.writer.write(ORG, [_memory(1, "first words"), _memory(2, "second words")])
    await rig.lane.drain()
    counts = await rig.store.embedding_counts(ORG)
    assert (counts.pending, counts.failed) == (0, 0)
    assert await rig.vector_hits("first words") != []
    # after a failed batch each chunk is retried alone
    assert rig.embedder.calls >= 3
    await rig.lane.stop()


async def test_a_chunk_that_keeps_failing_moves_to_the_dead_letter() -> None:
    rig = _Rig(_Flaky(1_000), LaneSettings(backoff=0.001, max_attempts=3))
    await rig.open()
    await rig.writer.write(ORG, [_memory(1, "never embeddable")])
    with pytest.raises(Exception) as caught:
        await rig.writer.write(ORG, [_memory(2, "waited for")], wait=True)
    assert "waited for" not in str(caught.value)  # the detail never quotes memory
    await rig.lane.drain()
    counts = await rig.store.embedding_counts(ORG)
    assert (counts.pending, counts.failed) == (0, 2)
    assert rig.lane.dead_letters == 2
    assert len(await rig.index.lexical(ORG, "embeddable", 5, ALL)) == 1  # still found by words
    # an operator requeues the dead letter once the model is back
    rig.embedder.failures = 0
    assert await rig.store.requeue_failed(ORG) == 2
    rig.lane.resume(ORG)
    await rig.lane.drain()
    assert (await rig.store.embedding_counts(ORG)).failed == 0
    await rig.lane.stop()


async def test_a_full_queue_never_delays_a_write_and_the_store_holds_the_rest() -> None:
    rig = _Rig(_Flaky(0), LaneSettings(capacity=2, batch_size=2))
    await rig.open()
    await rig.writer.write(ORG, [_memory(n, f"entry {n} words") for n in range(6)])
    assert rig.lane.depth <= 2  # the rest wait in the store, read back as room frees
    await rig.lane.drain()
    assert (await rig.store.embedding_counts(ORG)).pending == 0
    assert sorted(rig.embedder.texts) == sorted(f"entry {n} words" for n in range(6))
    await rig.lane.stop()


class _Gated(_Flaky):
    """Embeds only while its gate is open (a model the test can hold)."""

    def __init__(self) -> None:
        super().__init__(0)
        self.gate = asyncio.Event()

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        await self.gate.wait()
        return await super().embed(texts)


async def test_backpressure_holds_an_import_until_the_backlog_shrinks() -> None:
    embedder = _Gated()
    rig = _Rig(embedder, LaneSettings(backlog_limit=3, batch_size=2))
    await rig.open()
    await rig.writer.write(ORG, [_memory(n, f"bulk {n}") for n in range(5)])
    waiting = asyncio.ensure_future(
        rig.writer.write(ORG, [_memory(9, "next batch")], backpressure=True, tag="import-1")
    )
    for _ in range(20):
        await asyncio.sleep(0)
    assert not waiting.done()  # 5 chunks wait for the model, over the limit of 3
    embedder.gate.set()
    outcome = await waiting
    assert outcome.pending == 1
    assert rig.lane.knows("import-1")
    await rig.lane.drain()
    assert rig.lane.outstanding("import-1") == 0
    assert (await rig.store.embedding_counts(ORG)).pending == 0
    await rig.lane.stop()


async def test_the_same_text_is_embedded_once_and_a_seen_text_is_indexed_at_once() -> None:
    rig = _Rig(_Flaky(0))
    await rig.open()
    await rig.writer.write(ORG, [_memory(1, "repeat me"), _memory(2, "repeat me")])
    await rig.lane.drain()
    assert rig.embedder.texts == ["repeat me"]
    again = await rig.writer.write(ORG, [_memory(3, "repeat me")])
    assert (again.cached, again.pending) == (1, 0)
    assert len(await rig.vector_hits("repeat me")) == 3
    await rig.lane.stop()


class _CountedStore(InMemoryMemoryStore):
    """Counts the texts each read of the embedding cache asks for."""

    def __init__(self) -> None:
        super().__init__()
        self.cache_reads: list[list[str]] = []

    async def cached_embeddings(
        self, org_id: str, model: str, hashes: Sequence[str]
    ) -> dict[str, Vector]:
        self.cache_reads.append(list(hashes))
        return await super().cached_embeddings(org_id, model, hashes)


async def test_the_lane_reads_the_cache_only_for_texts_the_write_did_not_look_up() -> None:
    rig = _Rig(_Flaky(0))
    rig.store = _CountedStore()
    rig.restart()
    await rig.open()
    await rig.writer.write(ORG, [_memory(1, "a new text"), _memory(2, "another new text")])
    await rig.lane.drain()
    assert len(rig.store.cache_reads) == 1  # the write's own look-up, not the lane's again
    assert len(await rig.vector_hits("a new text")) >= 1
    await rig.writer.write(ORG, [_memory(3, "left pending by a stop")])
    await rig.lane.stop()
    rig.restart()  # read back from the store: nobody looked it up in this process
    await rig.open()
    rig.lane.resume(ORG)
    await rig.lane.drain()
    assert len(rig.store.cache_reads) == 3
    assert rig.embedder.texts == ["a new text", "another new text", "left pending by a stop"]
    await rig.lane.stop()


class _Poison(_Flaky):
    """Fails every batch holding the text 'poison'."""

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        if "poison" in texts:
            raise RuntimeError("model rejects it")
        return await super().embed(texts)


async def test_a_chunk_backing_off_holds_up_no_other() -> None:
    rig = _Rig(_Poison(0), LaneSettings(backoff=30.0, max_attempts=5))
    await rig.open()
    await rig.writer.write(ORG, [_memory(1, "poison")])
    await asyncio.sleep(0.05)  # its first attempt fails; the next is 30 s away
    fresh = rig.writer.write(ORG, [_memory(2, "fresh words")], wait=True)
    outcome = await asyncio.wait_for(fresh, 5)
    assert outcome.pending == 0
    assert (await rig.store.embedding_counts(ORG)).pending == 1  # the poison waits alone
    await rig.lane.stop()


async def test_dropping_an_organisation_disowns_the_batch_in_flight(
    caplog: pytest.LogCaptureFixture,
) -> None:
    embedder = _Gated()
    rig = _Rig(embedder, LaneSettings(backoff=0.0, max_attempts=3))
    await rig.open()
    waiting = rig.writer.write(ORG, [_memory(1, "in flight")], wait=True)
    pending = asyncio.ensure_future(waiting)
    for _ in range(20):
        await asyncio.sleep(0)
    assert rig.lane.depth == 0  # taken: the model holds the batch

    async def gone(*_: object, **__: object) -> list[str]:
        raise UpstreamError(ReasonCode.STORE_FAILED, "organisation not found")

    rig.lane.forget(ORG)
    await rig.store.drop_organization(ORG)
    rig.store.attach_vectors = gone  # type: ignore[method-assign]
    rig.store.embedding_failed = gone  # type: ignore[method-assign]
    with pytest.raises(TesseraError):
        await asyncio.wait_for(pending, 5)  # the waiter is told, not left hanging
    embedder.gate.set()
    with caplog.at_level(logging.WARNING, logger="tessera.embedding"):
        await asyncio.wait_for(rig.lane.drain(), 5)
    assert rig.lane.depth == 0  # nothing requeued for a dropped organisation
    assert rig.lane.dead_letters == 0
    assert not [r for r in caplog.records if "failed" in r.getMessage()]
    await rig.lane.stop()
