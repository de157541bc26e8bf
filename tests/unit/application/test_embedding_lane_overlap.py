"""The lane embeds batch n+1 while batch n is attached: order, bounds and failures.

On the reference adapters: a store whose ``attach_vectors`` the test can hold,
and an embedder that records what it was asked, so the overlap is seen
directly rather than timed.
"""

import asyncio
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

from adapters.inmemory.hashing_embedder import HashingEmbedder
from adapters.inmemory.memory_store import InMemoryMemoryStore
from adapters.inprocess.index import InProcessIndex
from application.enrichment.lane import EmbeddingLane, LaneSettings
from application.enrichment.priority import BACKGROUND
from application.indexing.readiness import OrgReadiness
from application.memory.writer import MemoryWriter
from application.ports.records import CandidateFilter, Vector
from domain.composition import compose_memory
from domain.errors import UpstreamError
from domain.models import Chunk, Source
from domain.reasons import ReasonCode

ORG = "overlap-org"
NOW = datetime(2031, 5, 1, 12, 0, tzinfo=UTC)


class _HeldStore(InMemoryMemoryStore):
    """Attaches only when let through; records each attach's chunks; may fail the first."""

    def __init__(self, fail_first: bool = False) -> None:
        super().__init__()
        self.gate = asyncio.Event()
        self.attaches: list[list[str]] = []
        self.in_flight = 0
        self.most_in_flight = 0
        self.fail_first = fail_first

    async def attach_vectors(
        self, org_id: str, model: str, vectors: Mapping[str, Vector]
    ) -> list[str]:
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            await self.gate.wait()
            if self.fail_first:
                self.fail_first = False
                raise UpstreamError(ReasonCode.STORE_FAILED, "the store hiccuped")
            self.attaches.append(sorted(vectors))
            return await super().attach_vectors(org_id, model, vectors)
        finally:
            self.in_flight -= 1


class _Recording(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__(64)
        self.batches: list[list[str]] = []

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        self.batches.append(list(texts))
        return await super().embed(texts)


def _memory(n: int) -> tuple[Source, list[Chunk]]:
    return compose_memory(
        new_id=lambda: f"m{n:02d}", org_id=ORG, actor_id="t", content=f"note {n}", now=NOW
    )


async def _rig(store: _HeldStore) -> tuple[EmbeddingLane, MemoryWriter, InProcessIndex]:
    index = InProcessIndex()
    embedder = _Recording()
    lane = EmbeddingLane(
        store=store, index=index, embedder=embedder, settings=LaneSettings(batch_size=2)
    )
    await OrgReadiness(store, index, embedder).ensure(ORG)
    return lane, MemoryWriter(store=store, index=index, embedder=embedder, lane=lane), index


async def _turns(n: int = 20) -> None:
    for _ in range(n):
        await asyncio.sleep(0)


async def test_the_next_batch_is_embedded_while_one_attach_is_in_flight_in_order() -> None:
    store = _HeldStore()
    lane, writer, index = await _rig(store)
    await writer.write(ORG, [_memory(n) for n in range(6)])
    await _turns()
    embedder = lane._embedder
    assert isinstance(embedder, _Recording)
    # batch 1 waits in the store; batch 2 was embedded beside it; batch 3 waits for both
    assert len(embedder.batches) == 2
    assert store.in_flight == 1 and store.attaches == []
    store.gate.set()
    await lane.drain()
    assert store.most_in_flight == 1
    assert [len(b) for b in embedder.batches] == [2, 2, 2]
    # attached in the order embedded, every chunk once
    chunk_of = {f"note {n}": sorted(c.chunk_id for c in _memory(n)[1]) for n in range(6)}
    expected = [sorted(c for t in b for c in chunk_of[t]) for b in embedder.batches]
    assert store.attaches == expected
    assert (await store.embedding_counts(ORG)).pending == 0
    (query,) = await embedder.embed(["note 4"])
    hits = await index.vector(ORG, query, 10, CandidateFilter())
    assert len(hits) == 6
    await lane.stop()


async def test_a_failed_attach_is_retried_and_the_batch_beside_it_is_kept() -> None:
    store = _HeldStore(fail_first=True)
    lane = (await _rig(store))[0]
    lane.settings = LaneSettings(batch_size=2, backoff=0.01)
    writer = MemoryWriter(store=store, index=InProcessIndex(), embedder=_Recording(), lane=lane)
    await writer.write(ORG, [_memory(n) for n in range(4)])
    store.gate.set()
    await asyncio.wait_for(lane.drain(), 5)
    counts = await store.embedding_counts(ORG)
    assert (counts.pending, counts.failed) == (0, 0)
    assert sorted(c for a in store.attaches for c in a) == sorted(
        c.chunk_id for n in range(4) for c in _memory(n)[1]
    )
    await lane.stop()


async def test_stop_finishes_the_attach_in_flight() -> None:
    store = _HeldStore()
    lane, writer, _ = await _rig(store)
    await writer.write(ORG, [_memory(n) for n in range(4)])
    await _turns()
    stopping = asyncio.ensure_future(lane.stop())
    await _turns()
    assert not stopping.done()  # an attach is in flight
    store.gate.set()
    await asyncio.wait_for(stopping, 5)
    assert store.in_flight == 0
    left = (await store.embedding_counts(ORG)).pending
    assert left == 4 - sum(len(a) for a in store.attaches)  # the rest stays pending, not lost


class _MarkRecording(_Recording):
    """Records whether each call was marked as background work."""

    def __init__(self) -> None:
        super().__init__()
        self.marks: list[bool] = []

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        self.marks.append(BACKGROUND.get())
        return await super().embed(texts)


async def test_lane_batches_are_background_work_unless_a_caller_waits_for_them() -> None:
    store = InMemoryMemoryStore()
    index = InProcessIndex()
    embedder = _MarkRecording()
    lane = EmbeddingLane(store=store, index=index, embedder=embedder)
    await OrgReadiness(store, index, embedder).ensure(ORG)
    writer = MemoryWriter(store=store, index=index, embedder=embedder, lane=lane)
    await writer.write(ORG, [_memory(1)])
    await lane.drain()
    await writer.write(ORG, [_memory(2)], wait=True)
    assert embedder.marks == [True, False]
    assert not BACKGROUND.get()  # the writer's own context is never marked
    await lane.stop()
