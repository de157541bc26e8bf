"""The behaviour every ``MemoryStore`` adapter owes the use cases, as a reusable pytest suite.

Why a suite and not per-adapter tests: the use cases are tested against the
in-memory fake, so the fake and every real store must agree on every promise
the use cases lean on — exact round-trips (a SCHEMAFULL table silently drops
fields it does not know), one embedding space per organisation, isolation
between organisations, all-or-nothing writes.

Usage: subclass it in a test module and provide an async fixture ``store``
that yields a fresh, empty store and closes it afterwards::

    class TestMyStore(MemoryStoreContract):
        @pytest.fixture
        async def store(self) -> AsyncIterator[MemoryStore]:
            s = MyStore()
            yield s
            await s.close()

The lifecycle/isolation half of the suite lives in
``contracts/memory_store_isolation.py``; this class includes it.
"""

from datetime import datetime

import msgspec
import pytest

from application.ports import MemoryStore
from application.ports.records import EmbeddingSpace
from contracts.change_log import MemoryStoreChangeLogContract
from contracts.corrections import MemoryStoreCorrectionContract
from contracts.embedding_queue import MemoryStoreEmbeddingQueueContract
from contracts.memory_store_isolation import ORG_A, MemoryStoreIsolationContract, assert_vectors
from contracts.retrieval_index import RetrievalIndexContract
from contracts.samples import (
    OCCURRED_OFFSET,
    SPACE,
    embedded,
    make_chunk,
    make_source,
    memory,
)
from domain.errors import ConflictError
from domain.models import Source
from domain.reasons import ReasonCode
from domain.scopes import LifecycleState, MemoryScope, PrivacyClass, ScopeRef, SourceType

__all__ = ["MemoryStoreContract", "RetrievalIndexContract"]


def _assert_same_source(got: Source | None, want: Source) -> None:
    assert got is not None
    assert got == want
    # == on datetimes compares instants and 1 == 1.0 == True: check what == cannot see.
    assert got.created_at.utcoffset() == want.created_at.utcoffset()
    if want.occurred_at is not None:
        assert got.occurred_at is not None
        assert got.occurred_at.utcoffset() == want.occurred_at.utcoffset()
    assert {k: type(v) for k, v in got.metadata.items()} == {
        k: type(v) for k, v in want.metadata.items()
    }


class MemoryStoreContract(
    MemoryStoreIsolationContract,
    MemoryStoreCorrectionContract,
    MemoryStoreEmbeddingQueueContract,
    MemoryStoreChangeLogContract,
):
    """Subclass (as ``Test...``) and provide a ``store`` fixture."""

    def test_info_names_engine_and_url_kind(self, store: MemoryStore) -> None:
        info = store.info()
        assert info.engine
        assert info.url_kind

    async def test_prepare_is_idempotent(self, store: MemoryStore) -> None:
        await store.prepare(ORG_A, SPACE)
        await store.prepare(ORG_A, SPACE)
        source, chunks = memory("s1", ORG_A, ["c1"])
        await store.save_memory(source, chunks)
        await store.prepare(ORG_A, SPACE)
        assert await store.count_chunks(ORG_A) == 1

    @pytest.mark.parametrize(
        "other",
        [
            EmbeddingSpace(model="another-model", dimension=SPACE.dimension),
            EmbeddingSpace(model=SPACE.model, dimension=SPACE.dimension + 4),
        ],
        ids=["model", "dimension"],
    )
    async def test_prepare_refuses_another_embedding_space(
        self, store: MemoryStore, other: EmbeddingSpace
    ) -> None:
        await store.prepare(ORG_A, SPACE)
        with pytest.raises(ConflictError) as caught:
            await store.prepare(ORG_A, other)
        assert caught.value.reason is ReasonCode.EMBEDDER_MISMATCH
        # the recorded space still works
        await store.prepare(ORG_A, SPACE)
        source, chunks = memory("s1", ORG_A, ["c1"])
        await store.save_memory(source, chunks)
        assert await store.count_chunks(ORG_A) == 1

    async def test_source_round_trips_every_field(self, store: MemoryStore) -> None:
        await store.prepare(ORG_A, SPACE)
        full = msgspec.structs.replace(
            make_source(
                "s-full",
                ORG_A,
                content="Ünïcode ✓ content\nwith 'quotes', \"double\" and a tab\t.",
                scope=MemoryScope.PROJECT,
                scope_key="proj/7 ü",
                metadata={
                    "text": "x",
                    "int": 42,
                    "big": 2**53 + 1,
                    "float": 1.5,
                    "whole": 2.0,
                    "yes": True,
                    "no": False,
                    "none": None,
                    "tags": ["a", "b"],
                    "empty": [],
                },
                occurred_at=datetime(2025, 12, 31, 23, 59, 58, 654321, tzinfo=OCCURRED_OFFSET),
                source_uri="mailto:someone@example.org?subject=x",
                lifecycle=LifecycleState.HIDDEN,
            ),
            source_type=SourceType.EMAIL,
            version=3,
            privacy_class=PrivacyClass.SENSITIVE,
            created_by="agent-9",
        )
        minimal = make_source("s-min", ORG_A, scope=MemoryScope.ORGANIZATION, scope_key=None)
        for source in (full, minimal):
            await store.save_memory(source, [embedded(make_chunk(source.source_id + "-c", source))])
        _assert_same_source(await store.get_source(ORG_A, "s-full"), full)
        _assert_same_source(await store.get_source(ORG_A, "s-min"), minimal)

    async def test_get_source_of_unknown_id_is_none(self, store: MemoryStore) -> None:
        await store.prepare(ORG_A, SPACE)
        assert await store.get_source(ORG_A, "missing") is None

    async def test_chunks_round_trip_every_field(self, store: MemoryStore) -> None:
        await store.prepare(ORG_A, SPACE)
        source = make_source(
            "s1", ORG_A, occurred_at=datetime(2024, 2, 29, 8, 0, 0, 1, tzinfo=OCCURRED_OFFSET)
        )
        chunks = [
            make_chunk(
                "c-0",
                source,
                text="first ✓ slice",
                ordinal=0,
                role="user",
                turn_index=0,
                speaker="Zoë O'Neil",
            ),
            make_chunk(
                "c-1",
                source,
                ordinal=1,
                lifecycle=LifecycleState.REDACTED,
                scope=MemoryScope.TEAM,
                scope_key="team-x",
            ),
            make_chunk(
                "c-2",
                source,
                ordinal=2,
                scope=MemoryScope.PUBLIC,
                scope_key=None,
                role="assistant",
                turn_index=7,
            ),
        ]
        await store.save_memory(source, [embedded(c) for c in chunks])
        got = await store.get_chunks(ORG_A, ["c-2", "nope", "c-0", "c-1", "c-0"])
        assert got == {c.chunk_id: c for c in chunks}
        for chunk in chunks:
            occurred = got[chunk.chunk_id].occurred_at
            assert occurred is not None
            assert occurred.utcoffset() == OCCURRED_OFFSET.utcoffset(None)
            assert got[chunk.chunk_id].created_at.utcoffset() == chunk.created_at.utcoffset()
        assert await store.get_chunks(ORG_A, []) == {}
        assert await store.get_chunks(ORG_A, ["nope"]) == {}

    async def test_a_memory_of_many_chunks_is_saved_whole(self, store: MemoryStore) -> None:
        await store.prepare(ORG_A, SPACE)
        ids = [f"c{n:03d}" for n in range(123)]
        source, chunks = memory("s1", ORG_A, ids)
        await store.save_memory(source, chunks)
        assert await store.count_chunks(ORG_A) == 123
        assert set(await store.get_chunks(ORG_A, ids)) == set(ids)

    async def test_count_chunks(self, store: MemoryStore) -> None:
        await store.prepare(ORG_A, SPACE)
        assert await store.count_chunks(ORG_A) == 0
        await store.save_memory(*memory("s1", ORG_A, ["a", "b"]))
        await store.save_memory(*memory("s2", ORG_A, ["c"]))
        assert await store.count_chunks(ORG_A) == 3

    async def test_chunks_of_source_in_ordinal_order(self, store: MemoryStore) -> None:
        await store.prepare(ORG_A, SPACE)
        first, first_chunks = memory("s1", ORG_A, ["c07", "c02", "c10"])
        await store.save_memory(first, first_chunks)
        await store.save_memory(*memory("s2", ORG_A, ["c01"]))
        found = await store.chunks_of_source(ORG_A, "s1")
        assert [c.chunk_id for c in found] == ["c07", "c02", "c10"]
        assert [c.ordinal for c in found] == [0, 1, 2]
        assert found[1] == first_chunks[1].chunk
        assert await store.chunks_of_source(ORG_A, "s-none") == []
        assert await store.chunks_of_source("org-never", "s1") == []

    async def test_source_states_list_one_space_in_id_order(self, store: MemoryStore) -> None:
        await store.prepare(ORG_A, SPACE)
        team = {"scope": MemoryScope.TEAM, "scope_key": "t1"}
        await store.save_memory(make_source("s3", ORG_A, **team), [])  # type: ignore[arg-type]
        hidden = make_source("s1", ORG_A, lifecycle=LifecycleState.HIDDEN, **team)  # type: ignore[arg-type]
        await store.save_memory(hidden, [])
        await store.save_memory(
            make_source("s2", ORG_A, scope=MemoryScope.TEAM, scope_key="t2"), []
        )
        await store.save_memory(make_source("s4", ORG_A), [])
        states = await store.source_states(ORG_A, ScopeRef(MemoryScope.TEAM, "t1"), 10)
        assert [(s.source_id, s.lifecycle) for s in states] == [
            ("s1", LifecycleState.HIDDEN),
            ("s3", LifecycleState.ACTIVE),
        ]
        assert len(await store.source_states(ORG_A, ScopeRef(MemoryScope.TEAM, "t1"), 1)) == 1
        assert await store.source_states("org-never", ScopeRef(MemoryScope.TEAM, "t1"), 10) == []
        assert await store.source_states(ORG_A, ScopeRef(MemoryScope.ORGANIZATION), 10) == []

    async def test_recent_sources_newest_first_active_only(self, store: MemoryStore) -> None:
        await store.prepare(ORG_A, SPACE)
        team = {"scope": MemoryScope.TEAM, "scope_key": "t1"}
        await store.save_memory(make_source("s1", ORG_A, **team), [])  # type: ignore[arg-type]
        hidden = make_source("s2", ORG_A, lifecycle=LifecycleState.HIDDEN, **team)  # type: ignore[arg-type]
        await store.save_memory(hidden, [])
        await store.save_memory(make_source("s3", ORG_A, **team), [])  # type: ignore[arg-type]
        await store.save_memory(make_source("s4", ORG_A), [])
        t1 = frozenset({ScopeRef(MemoryScope.TEAM, "t1")})
        recent = await store.recent_sources(ORG_A, t1, 10)
        assert [s.source_id for s in recent] == ["s3", "s1"]
        assert recent[0].scope is MemoryScope.TEAM and recent[0].owner == "user-1"
        assert [s.source_id for s in await store.recent_sources(ORG_A, None, 2)] == ["s4", "s3"]
        assert await store.recent_sources(ORG_A, frozenset(), 10) == []
        assert await store.recent_sources("org-never", None, 10) == []

    async def test_scan_pages_in_chunk_id_order(self, store: MemoryStore) -> None:
        await store.prepare(ORG_A, SPACE)
        first, first_chunks = memory("s1", ORG_A, ["c07", "c02", "c10", "c01", "c05"])
        first_chunks[1] = embedded(
            make_chunk("c02", first, ordinal=1, role="assistant", turn_index=3)
        )
        second, second_chunks = memory("s2", ORG_A, ["c03", "c09", "c04"])
        await store.save_memory(first, first_chunks)
        await store.save_memory(second, second_chunks)
        saved = {e.chunk.chunk_id: e for e in first_chunks + second_chunks}

        pages, after = [], None
        while page := await store.scan_index_entries(ORG_A, after, 3):
            assert len(page) <= 3
            pages.append([e.chunk_id for e in page])
            for entry in page:
                want = saved[entry.chunk_id]
                assert entry.source_id == want.chunk.source_id
                assert entry.text == want.chunk.text
                assert entry.scope == want.chunk.scope
                assert entry.scope_key == want.chunk.scope_key
                assert entry.lifecycle == want.chunk.lifecycle
                assert entry.occurred_at == want.chunk.occurred_at
                assert entry.role == want.chunk.role
                assert entry.turn_index == want.chunk.turn_index
                assert entry.vector is not None
                assert_vectors(entry.vector, want.vector)
            after = page[-1].chunk_id
        assert pages == [["c01", "c02", "c03"], ["c04", "c05", "c07"], ["c09", "c10"]]
        between = await store.scan_index_entries(ORG_A, "c035", 2)
        assert [e.chunk_id for e in between] == ["c04", "c05"]
        assert await store.scan_index_entries(ORG_A, "c10", 5) == []
        assert await store.scan_index_entries(ORG_A, None, 0) == []

    async def test_source_scan_pages_whole_sources_in_source_id_order(
        self, store: MemoryStore
    ) -> None:
        await store.prepare(ORG_A, SPACE)
        layout = {  # source ids not in the chunks' order, and one source longer than a page
            "s3": ["c01", "c08"],
            "s1": ["c07", "c02", "c10", "c05"],
            "s4": ["c03"],
            "s2": ["c09", "c04", "c06", "c11", "c12"],
        }
        saved = {}
        for source_id, chunk_ids in layout.items():
            source, chunks = memory(source_id, ORG_A, chunk_ids)
            await store.save_memory(source, chunks)
            saved.update({e.chunk.chunk_id: e for e in chunks})

        pages, after = [], None
        while page := await store.scan_index_sources(ORG_A, after, 3):
            pages.append([(e.source_id, e.chunk_id) for e in page])
            for entry in page:
                want = saved[entry.chunk_id]
                assert entry.source_id == want.chunk.source_id
                assert entry.text == want.chunk.text
                assert entry.vector is not None
                assert_vectors(entry.vector, want.vector)
            after = page[-1].source_id
        # whole sources, at least a page's worth each (but the last), none twice
        assert pages == [
            [("s1", "c02"), ("s1", "c05"), ("s1", "c07"), ("s1", "c10")],
            [("s2", c) for c in ("c04", "c06", "c09", "c11", "c12")],
            [("s3", "c01"), ("s3", "c08"), ("s4", "c03")],
        ]
        two = await store.scan_index_sources(ORG_A, "s2x", 1)  # after an id never stored
        assert [(e.source_id, e.chunk_id) for e in two] == [("s3", "c01"), ("s3", "c08")]
        assert await store.scan_index_sources(ORG_A, "s4", 5) == []
        assert await store.scan_index_sources(ORG_A, None, 0) == []
        assert await store.scan_index_sources("org-never", None, 5) == []

    async def test_embedding_cache_is_per_model_and_hash(self, store: MemoryStore) -> None:
        await store.prepare(ORG_A, SPACE)
        assert await store.cached_embeddings(ORG_A, SPACE.model, ["h1"]) == {}
        v1, v2 = [0.5, -0.25, 0.125, 1.0], [1.0, 0.0, 0.0, 0.0]
        await store.cache_embeddings(ORG_A, SPACE.model, {"h1": v1, "h2": v2})
        await store.cache_embeddings(ORG_A, "other-model", {"h1": v2})
        got = await store.cached_embeddings(ORG_A, SPACE.model, ["h1", "h3", "h2", "h1"])
        assert set(got) == {"h1", "h2"}
        assert_vectors(got["h1"], v1)
        assert_vectors(got["h2"], v2)
        other = await store.cached_embeddings(ORG_A, "other-model", ["h1", "h2"])
        assert set(other) == {"h1"}
        assert_vectors(other["h1"], v2)
        assert await store.cached_embeddings(ORG_A, "third-model", ["h1"]) == {}
        assert await store.cached_embeddings(ORG_A, SPACE.model, []) == {}
        await store.cache_embeddings(ORG_A, SPACE.model, {"h1": v1})  # idempotent
        assert_vectors((await store.cached_embeddings(ORG_A, SPACE.model, ["h1"]))["h1"], v1)
