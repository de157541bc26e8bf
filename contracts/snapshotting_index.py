"""What every ``SnapshottingIndex`` owes readiness (application.indexing.snapshot_keeper).

Usage: subclass it in a test module and provide ``make_index``, a fixture
returning a factory that opens the index over one snapshot location (called
again, it must see what an earlier instance saved there)::

    class TestMyIndex(SnapshottingIndexContract):
        @pytest.fixture
        def make_index(self, tmp_path: Path) -> Callable[[], SnapshottingIndex]:
            return lambda: MyIndex(tmp_path / "snapshots")

The store is the in-memory reference store; the index is driven the way the
use cases and readiness drive it.
"""

from collections.abc import Callable

import pytest

from adapters.inmemory.memory_store import InMemoryMemoryStore
from application.indexing.snapshots import SnapshotOutcome, SnapshottingIndex
from application.ports.records import CandidateFilter, EmbeddingSpace
from contracts.embedding_queue import _write
from contracts.samples import SPACE, unit

__all__ = ["SnapshottingIndexContract"]

ORG = "snapshotting-org"
ALL = CandidateFilter()
Q = unit([1, 0, 0, 0])


async def _filled(index: SnapshottingIndex) -> InMemoryMemoryStore:
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
    index.set_position(ORG, await store.change_position(ORG))
    return store


async def _ids(index: SnapshottingIndex) -> tuple[list[str], list[str]]:
    lexical = await index.lexical(ORG, "amber", 10, ALL)
    vector = await index.vector(ORG, Q, 10, ALL)
    return sorted(h.item_id for h in lexical), sorted(h.item_id for h in vector)


class SnapshottingIndexContract:
    @pytest.fixture
    def make_index(self) -> Callable[[], SnapshottingIndex]:
        raise NotImplementedError("provide a `make_index` fixture")

    async def test_nothing_saved_is_missing(
        self, make_index: Callable[[], SnapshottingIndex]
    ) -> None:
        index = make_index()
        assert index.snapshots_enabled
        load = await index.restore(ORG, SPACE)
        assert load.outcome is SnapshotOutcome.MISSING and not index.is_ready(ORG)
        assert index.snapshot_info(ORG) is None

    async def test_a_saved_index_restores_ready_at_its_position(
        self, make_index: Callable[[], SnapshottingIndex]
    ) -> None:
        index = make_index()
        store = await _filled(index)
        info = await index.save_snapshot(ORG, SPACE)
        assert info is not None and info.rows == 3
        assert info.position == await store.change_position(ORG)
        again = make_index()
        load = await again.restore(ORG, SPACE)
        assert load.outcome is SnapshotOutcome.LOADED and load.info == info
        assert again.is_ready(ORG) and again.position(ORG) == info.position
        assert await _ids(again) == await _ids(index)
        assert await _ids(again) == (["s1-0", "s2-0"], ["s1-0", "s1-1"])

    async def test_another_embedding_space_is_refused(
        self, make_index: Callable[[], SnapshottingIndex]
    ) -> None:
        index = make_index()
        await _filled(index)
        await index.save_snapshot(ORG, SPACE)
        other = EmbeddingSpace(model="another", dimension=SPACE.dimension)
        load = await make_index().restore(ORG, other)
        assert load.outcome is SnapshotOutcome.OTHER_MODEL

    async def test_catch_up_applies_the_store_and_is_idempotent(
        self, make_index: Callable[[], SnapshottingIndex]
    ) -> None:
        index = make_index()
        store = await _filled(index)
        await store.save_memories([_write("s3", ORG, ["amber kettle"], vectors=True)])
        await store.attach_vectors(ORG, SPACE.model, {"s2-0": Q})
        held = index.position(ORG)
        assert held is not None
        changed = await store.changed_sources(ORG, held.sequence, 10)
        ids = [source_id for _, source_id in changed.changes]
        for _ in range(2):
            await index.catch_up(ORG, ids, await store.index_entries_of(ORG, ids))
        lexical, vector = await _ids(index)
        assert lexical == ["s1-0", "s2-0", "s3-0"] and "s2-0" in vector and "s3-0" in vector
        await index.catch_up(ORG, ["s1"], [])  # s1's chunks are gone from the store
        assert "s1-0" not in (await _ids(index))[0]
        assert index.unsaved_changes(ORG) > 0 and index.unsaved_removals(ORG) > 0
        assert ORG in index.removal_orgs()

    async def test_a_dropped_organisation_leaves_no_snapshot(
        self, make_index: Callable[[], SnapshottingIndex]
    ) -> None:
        index = make_index()
        await _filled(index)
        await index.save_snapshot(ORG, SPACE)
        await index.drop(ORG)
        assert index.snapshot_info(ORG) is None
        load = await make_index().restore(ORG, SPACE)
        assert load.outcome is SnapshotOutcome.MISSING
