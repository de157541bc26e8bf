"""What every ``ResidentIndex`` / ``EvictableIndex`` owes the status and idle eviction.

Usage: subclass ``ResidentIndexContract`` (residency only) or
``EvictableIndexContract`` in a test module and provide ``make_index``, a
fixture returning a factory of fresh indexes (for an evictable one, over one
snapshot location)::

    class TestMyIndex(EvictableIndexContract):
        @pytest.fixture
        def make_index(self, tmp_path: Path) -> Callable[[], EvictableIndex]:
            return lambda: MyIndex(tmp_path / "snapshots")

The index is driven as readiness drives it; the store is the in-memory one.
"""

from collections.abc import Callable
from typing import Any

import pytest

from adapters.inmemory.memory_store import InMemoryMemoryStore
from application.indexing.residency import EvictableIndex, IndexResidency, VectorLeg
from application.ports.records import CandidateFilter
from contracts.embedding_queue import _write
from contracts.samples import SPACE

__all__ = ["EvictableIndexContract", "ResidentIndexContract"]

ORG = "resident-org"


async def _filled(index: Any) -> InMemoryMemoryStore:
    store = InMemoryMemoryStore()
    await store.prepare(ORG, SPACE)
    await store.save_memories(
        [
            _write("s1", ORG, ["amber lantern", "quiet harbour"], vectors=True),
            _write("s2", ORG, ["amber meadow"]),
        ]
    )
    await index.add(ORG, await store.scan_index_entries(ORG, None, 100))
    await index.mark_ready(ORG)
    return store


class ResidentIndexContract:
    @pytest.fixture
    def make_index(self) -> Callable[[], Any]:
        raise NotImplementedError("provide a `make_index` fixture")

    async def test_an_organisation_never_used_is_not_resident(
        self, make_index: Callable[[], Any]
    ) -> None:
        assert make_index().residency(ORG) is None

    async def test_a_used_organisation_reports_its_rows_leg_and_memory(
        self, make_index: Callable[[], Any]
    ) -> None:
        index = make_index()
        await _filled(index)
        held = index.residency(ORG)
        assert isinstance(held, IndexResidency)
        assert held.rows == 3 and held.vector_leg in set(VectorLeg)
        assert held.resident_bytes > 0
        assert index.residency("another-org") is None


class EvictableIndexContract(ResidentIndexContract):
    async def test_an_evicted_organisation_leaves_memory_and_is_not_ready(
        self, make_index: Callable[[], EvictableIndex]
    ) -> None:
        index: Any = make_index()
        assert index.evictable
        store = await _filled(index)
        assert ORG in index.resident_orgs()
        index.set_position(ORG, await store.change_position(ORG))
        await index.save_snapshot(ORG, SPACE)
        await index.evict(ORG)
        assert index.residency(ORG) is None and not index.is_ready(ORG)
        assert ORG not in index.resident_orgs()
        # a write while it is out does not bring back a partial index
        await index.add(ORG, await store.scan_index_entries(ORG, None, 1))
        assert index.residency(ORG) is None and not index.is_ready(ORG)
        assert await index.lexical(ORG, "amber", 10, CandidateFilter()) == []
        # its snapshot brings it back whole
        load = await index.restore(ORG, SPACE)
        assert str(load.outcome) == "loaded" and index.is_ready(ORG)
        again = index.residency(ORG)
        assert again is not None and again.rows == 3

    async def test_evicting_an_organisation_not_held_does_nothing(
        self, make_index: Callable[[], EvictableIndex]
    ) -> None:
        index = make_index()
        await index.evict(ORG)
        assert index.residency(ORG) is None and index.resident_orgs() == []
