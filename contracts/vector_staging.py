"""What a store owes ``tessera reembed``: a second model's vectors beside the served ones.

Staged vectors are invisible to search and to the index rebuild until the
switch; the switch is all or nothing and refuses while a chunk lacks its new
vector; a deleted or redacted chunk leaves no staged vector of its text; and
after the switch the store serves only the new model (the old one is refused
as any other model is). Subclass (as ``Test...``) and provide a ``store``
fixture whose store also implements ``VectorStaging``.
"""

import msgspec
import pytest

from application.operations.reembed.ports import VectorStaging
from application.operations.reembed.records import ReembedJob
from application.ports import MemoryStore
from application.ports.records import EmbeddingSpace
from application.ports.writes import MemoryWrite
from contracts.samples import CREATED, SPACE, make_chunk, make_source, unit
from domain.errors import ConflictError
from domain.reasons import ReasonCode
from domain.scopes import LifecycleState

__all__ = ["VectorStagingContract"]

ORG, OTHER = "staging-org-a", "staging-org-b"
NEXT = EmbeddingSpace(model="next-model", dimension=3)


def _write(source_id: str, texts: list[str], *, vectors: bool = True) -> MemoryWrite:
    source = make_source(source_id, ORG, content=" ".join(texts), scope_key="u1")
    chunks = [
        make_chunk(f"{source_id}-{n}", source, text=t, ordinal=n) for n, t in enumerate(texts)
    ]
    known = {c.chunk_id: unit([1, n, 0, 0]) for n, c in enumerate(chunks)} if vectors else {}
    return MemoryWrite(source=source, chunks=chunks, vectors=known)


def _new(n: int) -> list[float]:
    return unit([1.0, float(n), 2.0])


class VectorStagingContract:
    @pytest.fixture
    def store(self) -> MemoryStore:
        raise NotImplementedError("provide a `store` fixture")

    async def _filled(self, store: MemoryStore) -> VectorStaging:
        assert isinstance(store, VectorStaging)
        await store.prepare(ORG, SPACE)
        await store.save_memories(
            [_write("a", ["alpha one", "alpha two"]), _write("b", ["beta"], vectors=False)]
        )
        return store

    async def _stage_all(self, staging: VectorStaging) -> dict[str, list[float]]:
        page = await staging.unstaged_chunks(ORG, NEXT.model, None, 100)
        vectors = {c.chunk_id: _new(n) for n, c in enumerate(page.chunks)}
        assert await staging.stage_vectors(ORG, NEXT, vectors) == len(vectors)
        return vectors

    async def test_unstaged_chunks_page_in_chunk_id_order_and_skip_staged(
        self, store: MemoryStore
    ) -> None:
        staging = await self._filled(store)
        assert await staging.recorded_space(ORG) == SPACE
        assert await staging.recorded_space(OTHER) is None
        first = await staging.unstaged_chunks(ORG, NEXT.model, None, 2)
        assert [c.chunk_id for c in first.chunks] == ["a-0", "a-1"] and first.last == "a-1"
        assert first.chunks[0].text == "alpha one"
        rest = await staging.unstaged_chunks(ORG, NEXT.model, first.last, 2)
        assert [c.chunk_id for c in rest.chunks] == ["b-0"] and rest.last is None
        assert await staging.stage_vectors(ORG, NEXT, {"a-1": _new(1)}) == 1
        again = await staging.unstaged_chunks(ORG, NEXT.model, None, 10)
        assert [c.chunk_id for c in again.chunks] == ["a-0", "b-0"]
        assert await staging.staged_count(ORG, NEXT.model) == 1
        # another model's staging does not count as this one's
        assert await staging.staged_count(ORG, "third-model") == 0

    async def test_staged_vectors_stay_out_of_what_search_reads(self, store: MemoryStore) -> None:
        staging = await self._filled(store)
        await self._stage_all(staging)
        entries = await store.scan_index_entries(ORG, None, 10)
        served = {e.chunk_id: e.vector for e in entries}
        assert served["a-0"] is not None and len(served["a-0"]) == SPACE.dimension
        assert served["b-0"] is None  # still pending for the served model

    async def test_a_vector_of_another_dimension_is_refused(self, store: MemoryStore) -> None:
        staging = await self._filled(store)
        with pytest.raises(ConflictError) as caught:
            await staging.stage_vectors(ORG, NEXT, {"a-0": unit([1, 0, 0, 0])})
        assert caught.value.reason is ReasonCode.EMBEDDER_MISMATCH

    async def test_a_deleted_chunk_is_not_staged_and_a_redaction_drops_its_staging(
        self, store: MemoryStore
    ) -> None:
        staging = await self._filled(store)
        assert await staging.stage_vectors(ORG, NEXT, {"nope": _new(0)}) == 0
        await self._stage_all(staging)
        (a,) = (await store.get_sources(ORG, ["a"])).values()
        gone = msgspec.structs.replace(a, version=2, lifecycle=LifecycleState.DELETED)
        await store.update_source(gone, expected_version=1, drop_text=True)
        assert await staging.staged_count(ORG, NEXT.model) == 1

    async def test_the_switch_refuses_while_a_chunk_lacks_its_new_vector(
        self, store: MemoryStore
    ) -> None:
        staging = await self._filled(store)
        await staging.stage_vectors(ORG, NEXT, {"a-0": _new(0), "a-1": _new(1)})
        with pytest.raises(ConflictError) as caught:
            await staging.switch_space(ORG, NEXT)
        assert caught.value.reason is ReasonCode.REEMBED_INCOMPLETE
        assert await staging.recorded_space(ORG) == SPACE
        entries = {e.chunk_id: e.vector for e in await store.scan_index_entries(ORG, None, 10)}
        assert entries["a-0"] is not None and len(entries["a-0"]) == SPACE.dimension
        assert await staging.staged_count(ORG, NEXT.model) == 2

    async def test_the_switch_serves_the_new_vectors_and_drops_the_old(
        self, store: MemoryStore
    ) -> None:
        staging = await self._filled(store)
        await store.cache_embeddings(ORG, SPACE.model, {"h1": unit([1, 0, 0, 0])})
        await store.cache_embeddings(ORG, NEXT.model, {"h1": _new(7)})
        staged = await self._stage_all(staging)
        assert await staging.switch_space(ORG, NEXT) == 3
        assert await staging.recorded_space(ORG) == NEXT
        entries = {e.chunk_id: e.vector for e in await store.scan_index_entries(ORG, None, 10)}
        for cid, vector in staged.items():
            assert entries[cid] == pytest.approx(vector, abs=1e-6)
        assert await store.pending_embeddings(ORG, 10) == []  # the queued chunk is indexed
        assert await staging.staged_count(ORG, NEXT.model) == 0
        assert await store.cached_embeddings(ORG, SPACE.model, ["h1"]) == {}
        assert await store.cached_embeddings(ORG, NEXT.model, ["h1"]) != {}
        await store.prepare(ORG, NEXT)  # the new space is the recorded one now
        with pytest.raises(ConflictError) as caught:
            await store.prepare(ORG, SPACE)
        assert caught.value.reason is ReasonCode.EMBEDDER_MISMATCH
        with pytest.raises(ConflictError):  # a late vector of the old model is refused
            await store.attach_vectors(ORG, SPACE.model, {"a-0": unit([1, 0, 0, 0])})
        assert await staging.switch_space(ORG, NEXT) == 0  # done already: nothing to do

    async def test_new_writes_after_the_switch_take_the_new_dimension(
        self, store: MemoryStore
    ) -> None:
        staging = await self._filled(store)
        await self._stage_all(staging)
        await staging.switch_space(ORG, NEXT)
        source = msgspec.structs.replace(
            make_source("c", ORG, content="gamma", scope_key="u1"), created_at=CREATED
        )
        chunk = make_chunk("c-0", source, text="gamma", ordinal=0)
        await store.save_memories(
            [MemoryWrite(source=source, chunks=[chunk], vectors={"c-0": _new(3)})]
        )
        entries = {e.chunk_id: e.vector for e in await store.scan_index_entries(ORG, None, 10)}
        assert entries["c-0"] is not None and len(entries["c-0"]) == NEXT.dimension
        # a write whose vectors were looked up for the old model before the switch
        late = make_source("d", ORG, content="delta", scope_key="u1")
        late_chunk = make_chunk("d-0", late, text="delta", ordinal=0)
        stale = MemoryWrite(
            source=late, chunks=[late_chunk], vectors={"d-0": _new(4)}, model=SPACE.model
        )
        with pytest.raises(ConflictError) as caught:
            await store.save_memories([stale])
        assert caught.value.reason is ReasonCode.EMBEDDER_MISMATCH
        assert await store.get_source(ORG, "d") is None

    async def test_the_progress_record_round_trips_and_clears(self, store: MemoryStore) -> None:
        staging = await self._filled(store)
        assert await staging.reembed_job(ORG) is None
        job = ReembedJob(
            embedder="next", target=NEXT, after="a-1", staged=2, started_at=CREATED, seconds=1.5
        )
        await staging.save_reembed_job(ORG, job)
        assert await staging.reembed_job(ORG) == job
        await staging.save_reembed_job(ORG, None)
        assert await staging.reembed_job(ORG) is None
        await staging.save_reembed_job(OTHER, job)  # never prepared: ignored
        assert await staging.reembed_job(OTHER) is None

    async def test_discarding_forgets_every_staged_vector(self, store: MemoryStore) -> None:
        staging = await self._filled(store)
        await self._stage_all(staging)
        await staging.discard_staged(ORG)
        assert await staging.staged_count(ORG, NEXT.model) == 0
        page = await staging.unstaged_chunks(ORG, NEXT.model, None, 10)
        assert len(page.chunks) == 3
