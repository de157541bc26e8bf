"""What every store and index owes the embedding lane: chunks saved before their vectors.

The store holds each chunk's embedding state, so it is the durable queue a
restart resumes: pending chunks are listed oldest first, bounded, get their
vectors (and the cache entry of their text) in one step, count failed
attempts and move to a dead letter after enough of them. An index answers
lexical queries for a pending chunk at once and vector queries only once its
vector is attached; a removed chunk never comes back through a late vector.

Included in ``MemoryStoreContract`` and ``RetrievalIndexContract``.
"""

from datetime import timedelta

import msgspec
import pytest

from application.ports import MemoryStore, RetrievalIndex
from application.ports.records import CandidateFilter, IndexEntry
from application.ports.writes import MemoryWrite
from contracts.samples import CREATED, SPACE, make_chunk, make_source, unit
from domain.errors import UpstreamError
from domain.models import Chunk, Source, chunk_recall
from domain.scopes import LifecycleState

__all__ = ["MemoryStoreEmbeddingQueueContract", "RetrievalIndexPendingContract"]

ORG, OTHER = "queue-org-a", "queue-org-b"
ALL = CandidateFilter()


def _write(
    source_id: str, org: str, texts: list[str], *, minutes: int = 0, vectors: bool = False
) -> MemoryWrite:
    source = make_source(
        source_id, org, content=" ".join(texts), scope_key="u1"
    )
    source = msgspec.structs.replace(source, created_at=CREATED + timedelta(minutes=minutes))
    chunks = [
        make_chunk(f"{source_id}-{n}", source, text=t, ordinal=n) for n, t in enumerate(texts)
    ]
    known = {c.chunk_id: unit([1, n, 0, 0]) for n, c in enumerate(chunks)} if vectors else {}
    return MemoryWrite(source=source, chunks=chunks, vectors=known)


class MemoryStoreEmbeddingQueueContract:
    @pytest.fixture
    def store(self) -> MemoryStore:
        raise NotImplementedError("provide a `store` fixture")

    async def test_chunks_saved_without_vectors_are_pending_oldest_first(
        self, store: MemoryStore
    ) -> None:
        await store.prepare(ORG, SPACE)
        await store.save_memories(
            [
                _write("q2", ORG, ["later words"], minutes=5),
                _write("q1", ORG, ["first words", "second words"]),
                _write("q3", ORG, ["known vector"], vectors=True),
            ]
        )
        assert await store.count_sources(ORG) == 3
        assert await store.count_chunks(ORG) == 4
        pending = await store.pending_embeddings(ORG, 10)
        assert [p.chunk_id for p in pending] == ["q1-0", "q1-1", "q2-0"]
        assert pending[0].text == "first words"
        assert pending[0].attempts == 0
        assert pending[0].created_at == CREATED
        assert [p.chunk_id for p in await store.pending_embeddings(ORG, 2)] == ["q1-0", "q1-1"]
        counts = await store.embedding_counts(ORG)
        assert (counts.pending, counts.failed) == (3, 0)
        assert counts.oldest_pending_at == CREATED
        # the index rebuild sees a pending chunk without a vector
        entries = {e.chunk_id: e for e in await store.scan_index_entries(ORG, None, 10)}
        assert entries["q1-0"].vector is None
        assert entries["q3-0"].vector is not None
        # the chunk and its source read back whole while pending
        got = await store.get_chunks(ORG, ["q1-1"])
        assert got["q1-1"].text == "second words"

    async def test_attaching_vectors_indexes_and_caches(self, store: MemoryStore) -> None:
        await store.prepare(ORG, SPACE)
        write = _write("a1", ORG, ["alpha text", "beta text"])
        await store.save_memories([write])
        vector = unit([0, 1, 0, 0])
        attached = await store.attach_vectors(
            ORG, SPACE.model, {"a1-0": vector, "missing": vector}
        )
        assert attached == ["a1-0"]
        assert [p.chunk_id for p in await store.pending_embeddings(ORG, 10)] == ["a1-1"]
        entries = {e.chunk_id: e for e in await store.scan_index_entries(ORG, None, 10)}
        assert entries["a1-0"].vector == pytest.approx(vector, abs=1e-6)
        cached = await store.cached_embeddings(ORG, SPACE.model, [write.chunks[0].content_hash])
        assert cached[write.chunks[0].content_hash] == pytest.approx(vector, abs=1e-6)
        assert (await store.embedding_counts(ORG)).pending == 1

    async def test_failures_count_then_dead_letter_then_requeue(self, store: MemoryStore) -> None:
        await store.prepare(ORG, SPACE)
        await store.save_memories([_write("f1", ORG, ["one", "two"])])
        assert await store.embedding_failed(ORG, ["f1-0", "f1-1"], 3) == []
        assert await store.embedding_failed(ORG, ["f1-0"], 3) == []
        pending = {p.chunk_id: p.attempts for p in await store.pending_embeddings(ORG, 10)}
        assert pending == {"f1-0": 2, "f1-1": 1}
        assert await store.embedding_failed(ORG, ["f1-0"], 3) == ["f1-0"]
        assert [p.chunk_id for p in await store.pending_embeddings(ORG, 10)] == ["f1-1"]
        counts = await store.embedding_counts(ORG)
        assert (counts.pending, counts.failed) == (1, 1)
        assert await store.requeue_failed(ORG) == 1
        pending = {p.chunk_id: p.attempts for p in await store.pending_embeddings(ORG, 10)}
        assert pending == {"f1-0": 0, "f1-1": 1}

    async def test_a_bulk_write_is_all_or_nothing(self, store: MemoryStore) -> None:
        await store.prepare(ORG, SPACE)
        await store.save_memories([_write("dup", ORG, ["held"])])
        with pytest.raises(UpstreamError):
            await store.save_memories(
                [_write("new1", ORG, ["fresh"]), _write("dup", ORG, ["again"])]
            )
        assert await store.get_source(ORG, "new1") is None
        assert await store.count_chunks(ORG) == 1

    async def test_a_deleted_pending_chunk_leaves_the_queue_and_gets_no_vector(
        self, store: MemoryStore
    ) -> None:
        await store.prepare(ORG, SPACE)
        write = _write("d1", ORG, ["secret words"])
        await store.save_memories([write])
        gone = msgspec.structs.replace(
            write.source, version=2, lifecycle=LifecycleState.DELETED, content=""
        )
        await store.update_source(gone, expected_version=1, drop_text=True)
        assert await store.pending_embeddings(ORG, 10) == []
        assert await store.attach_vectors(ORG, SPACE.model, {"d1-0": unit([1, 0, 0, 0])}) == []
        hash_ = write.chunks[0].content_hash
        assert await store.cached_embeddings(ORG, SPACE.model, [hash_]) == {}

    async def test_queues_are_per_organisation(self, store: MemoryStore) -> None:
        await store.prepare(ORG, SPACE)
        await store.prepare(OTHER, SPACE)
        await store.save_memories([_write("o1", ORG, ["mine"])])
        assert await store.pending_embeddings(OTHER, 10) == []
        assert (await store.embedding_counts(OTHER)).pending == 0
        assert await store.attach_vectors(OTHER, SPACE.model, {"o1-0": unit([1, 0, 0, 0])}) == []
        assert (await store.embedding_counts(ORG)).pending == 1
        assert (await store.embedding_counts("queue-org-never")).pending == 0


def _entries(source: Source, chunks: list[Chunk]) -> list[IndexEntry]:
    return [IndexEntry.of_chunk(c, None, chunk_recall(source, c)) for c in chunks]


class RetrievalIndexPendingContract:
    @pytest.fixture
    def pair(self) -> tuple[MemoryStore, RetrievalIndex]:
        raise NotImplementedError("provide a `pair` fixture yielding (store, index)")

    async def _pending(self, store: MemoryStore, index: RetrievalIndex) -> MemoryWrite:
        await store.prepare(ORG, SPACE)
        write = _write("p1", ORG, ["the lighthouse keeper logs storms", "unrelated cargo"])
        await store.save_memories([write])
        await index.add(ORG, _entries(write.source, write.chunks))
        await index.mark_ready(ORG)
        return write

    async def test_a_pending_chunk_is_found_lexically_not_by_vector(
        self, pair: tuple[MemoryStore, RetrievalIndex]
    ) -> None:
        store, index = pair
        await self._pending(store, index)
        hits = await index.lexical(ORG, "lighthouse storms", 5, ALL)
        assert [h.item_id for h in hits] == ["p1-0"]
        assert await index.vector(ORG, unit([1, 0, 0, 0]), 5, ALL) == []
        texts = await index.candidate_texts(ORG, ["p1-0"], ALL)
        assert texts["p1-0"].text == "the lighthouse keeper logs storms"

    async def test_an_attached_vector_makes_it_a_vector_candidate(
        self, pair: tuple[MemoryStore, RetrievalIndex]
    ) -> None:
        store, index = pair
        await self._pending(store, index)
        vectors = {"p1-0": unit([1, 0, 0, 0])}
        assert await store.attach_vectors(ORG, SPACE.model, vectors) == ["p1-0"]
        await index.attach_vectors(ORG, vectors)
        hits = await index.vector(ORG, unit([1, 0.1, 0, 0]), 5, ALL)
        assert [h.item_id for h in hits] == ["p1-0"]
        assert hits[0].score == pytest.approx(
            sum(a * b for a, b in zip(unit([1, 0.1, 0, 0]), vectors["p1-0"], strict=True)),
            abs=1e-3,
        )

    async def test_a_removed_chunk_is_not_revived_by_a_late_vector(
        self, pair: tuple[MemoryStore, RetrievalIndex]
    ) -> None:
        store, index = pair
        write = await self._pending(store, index)
        gone = msgspec.structs.replace(
            write.source, version=2, lifecycle=LifecycleState.DELETED, content=""
        )
        await store.update_source(gone, expected_version=1, drop_text=True)
        await index.remove(ORG, "p1")
        vectors = {"p1-0": unit([1, 0, 0, 0])}
        assert await store.attach_vectors(ORG, SPACE.model, vectors) == []
        await index.attach_vectors(ORG, vectors)
        assert await index.vector(ORG, unit([1, 0, 0, 0]), 5, ALL) == []
        assert await index.lexical(ORG, "lighthouse", 5, ALL) == []
