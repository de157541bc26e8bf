"""The second half of the MemoryStore contract: tenants, deletion and failed writes.

Kept apart from the round-trip half (``contracts/memory_store.py``, which
includes this class) only to keep each module small. These are the promises
whose breach leaks or loses data: nothing of one organisation is visible
through another, dropping one organisation leaves the others whole, and a
failed ``save_memory`` leaves neither the source nor any of its chunks.
"""

import asyncio
import math
from collections.abc import Sequence
from datetime import datetime

import msgspec
import pytest

from application.ports import MemoryStore
from application.ports.records import EmbeddingSpace
from contracts.samples import SPACE, embedded, make_chunk, make_source, memory
from domain.errors import TesseraError

__all__ = ["ORG_A", "ORG_B", "ORG_ODD", "MemoryStoreIsolationContract", "assert_vectors"]

ORG_A = "org-a"
ORG_B = "org-b"
#: an org id no identifier rule would allow as is: stores must map it safely
ORG_ODD = "Acme Corp/EU; DROP"
_NEVER_PREPARED = "org-never-prepared"


def assert_vectors(got: Sequence[float], want: Sequence[float]) -> None:
    """Equal at float32 precision: stores may keep vectors as float32."""
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert math.isclose(g, w, rel_tol=1e-6, abs_tol=1e-7), (g, w)


async def _assert_nothing_of(store: MemoryStore, org: str, source_id: str, ids: list[str]) -> None:
    assert await store.get_source(org, source_id) is None
    assert await store.get_chunks(org, ids) == {}
    assert await store.count_chunks(org) == 0
    assert await store.scan_index_entries(org, None, 100) == []


class MemoryStoreIsolationContract:
    @pytest.fixture
    def store(self) -> MemoryStore:
        raise NotImplementedError("provide a `store` fixture yielding a fresh, empty MemoryStore")

    async def test_organisations_are_isolated(self, store: MemoryStore) -> None:
        await store.prepare(ORG_A, SPACE)
        await store.prepare(ORG_ODD, SPACE)
        source, chunks = memory("shared-looking-id", ORG_A, ["c1", "c2"])
        await store.save_memory(source, chunks)
        await store.cache_embeddings(ORG_A, SPACE.model, {"h1": [1.0, 0.0, 0.0, 0.0]})
        ids = [c.chunk.chunk_id for c in chunks]
        for other in (ORG_ODD, _NEVER_PREPARED):
            await _assert_nothing_of(store, other, source.source_id, ids)
            assert await store.cached_embeddings(other, SPACE.model, ["h1"]) == {}
        # the odd-named org works like any other, with the same ids as org A
        odd, odd_chunks = memory("shared-looking-id", ORG_ODD, ["c1"])
        await store.save_memory(odd, odd_chunks)
        assert await store.get_source(ORG_ODD, odd.source_id) == odd
        assert await store.count_chunks(ORG_ODD) == 1
        assert await store.count_chunks(ORG_A) == 2
        assert (await store.count_sources(ORG_A), await store.count_sources(ORG_ODD)) == (1, 1)
        assert await store.get_source(ORG_A, source.source_id) == source

    async def test_each_organisation_has_its_own_embedding_space(self, store: MemoryStore) -> None:
        await store.prepare(ORG_A, SPACE)
        wide = EmbeddingSpace(model="wide-model", dimension=8)
        await store.prepare(ORG_B, wide)
        source = make_source("s1", ORG_B)
        await store.save_memory(source, [embedded(make_chunk("c1", source), [0.5] * 8)])
        assert await store.count_chunks(ORG_B) == 1

    async def test_drop_organization_removes_only_that_organisation(
        self, store: MemoryStore
    ) -> None:
        for org in (ORG_A, ORG_B):
            await store.prepare(org, SPACE)
            await store.save_memory(*memory("s1", org, ["c1", "c2"]))
            await store.cache_embeddings(org, SPACE.model, {"h1": [0.0, 1.0, 0.0, 0.0]})
        await store.drop_organization(ORG_A)
        await _assert_nothing_of(store, ORG_A, "s1", ["c1", "c2"])
        assert await store.cached_embeddings(ORG_A, SPACE.model, ["h1"]) == {}
        assert await store.count_chunks(ORG_B) == 2
        assert (await store.count_sources(ORG_A), await store.count_sources(ORG_B)) == (0, 1)
        assert await store.get_source(ORG_B, "s1") is not None
        assert set(await store.cached_embeddings(ORG_B, SPACE.model, ["h1"])) == {"h1"}
        # the dropped organisation starts over, even with another embedding space
        await store.prepare(ORG_A, EmbeddingSpace(model="new-model", dimension=8))
        await store.drop_organization(ORG_A)
        await store.drop_organization(_NEVER_PREPARED)

    async def test_a_wrong_dimension_writes_nothing(self, store: MemoryStore) -> None:
        await store.prepare(ORG_A, SPACE)
        source = make_source("s1", ORG_A)
        good = embedded(make_chunk("c1", source, ordinal=0))
        bad = embedded(make_chunk("c2", source, ordinal=1), [1.0, 0.0, 0.0])
        with pytest.raises(TesseraError):
            await store.save_memory(source, [good, bad])
        await _assert_nothing_of(store, ORG_A, "s1", ["c1", "c2"])

    async def test_a_clashing_chunk_id_writes_nothing(self, store: MemoryStore) -> None:
        await store.prepare(ORG_A, SPACE)
        first, first_chunks = memory("s1", ORG_A, ["c1"])
        await store.save_memory(first, first_chunks)
        second = make_source("s2", ORG_A)
        clash = [
            embedded(make_chunk("c2", second, ordinal=0)),
            embedded(make_chunk("c1", second, ordinal=1)),
        ]
        with pytest.raises(TesseraError):
            await store.save_memory(second, clash)
        assert await store.get_source(ORG_A, "s2") is None
        assert set(await store.get_chunks(ORG_A, ["c1", "c2"])) == {"c1"}
        assert (await store.get_chunks(ORG_A, ["c1"]))["c1"].source_id == "s1"
        assert await store.count_chunks(ORG_A) == 1
        with pytest.raises(TesseraError):  # the same source twice
            await store.save_memory(first, [])
        assert await store.get_source(ORG_A, "s1") == first

    async def test_chunks_of_another_source_are_refused(self, store: MemoryStore) -> None:
        await store.prepare(ORG_A, SPACE)
        await store.prepare(ORG_B, SPACE)
        source = make_source("s1", ORG_A)
        stranger = make_source("s9", ORG_B)
        with pytest.raises(TesseraError):
            await store.save_memory(source, [embedded(make_chunk("c1", stranger))])
        await _assert_nothing_of(store, ORG_A, "s1", ["c1"])
        await _assert_nothing_of(store, ORG_B, "s9", ["c1"])

    async def test_naive_datetimes_are_refused(self, store: MemoryStore) -> None:
        await store.prepare(ORG_A, SPACE)
        naive = msgspec.structs.replace(
            make_source("s1", ORG_A), created_at=datetime(2026, 1, 1, 12, 0)
        )
        with pytest.raises(TesseraError):
            await store.save_memory(naive, [])
        assert await store.get_source(ORG_A, "s1") is None

    async def test_writes_need_prepare(self, store: MemoryStore) -> None:
        with pytest.raises(TesseraError):
            await store.save_memory(*memory("s1", _NEVER_PREPARED, ["c1"]))
        with pytest.raises(TesseraError):
            await store.cache_embeddings(_NEVER_PREPARED, SPACE.model, {"h": [1.0, 0, 0, 0]})
        await _assert_nothing_of(store, _NEVER_PREPARED, "s1", ["c1"])

    async def test_concurrent_writes_to_two_organisations_stay_apart(
        self, store: MemoryStore
    ) -> None:
        await asyncio.gather(store.prepare(ORG_A, SPACE), store.prepare(ORG_B, SPACE))

        async def remember(org: str, n: int) -> None:
            ids = [f"{org}-c{n}-{k}" for k in range(3)]
            await store.save_memory(*memory(f"{org}-s{n}", org, ids))
            await store.count_chunks(org)

        await asyncio.gather(*(remember(org, n) for n in range(12) for org in (ORG_A, ORG_B)))
        for org, other in ((ORG_A, ORG_B), (ORG_B, ORG_A)):
            entries = await store.scan_index_entries(org, None, 1000)
            assert len(entries) == 36
            assert all(e.chunk_id.startswith(org + "-") for e in entries)
            assert await store.get_source(org, f"{other}-s0") is None
