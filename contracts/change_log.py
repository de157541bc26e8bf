"""What every store owes a derived index that catches up: the change sequence.

Part of ``MemoryStoreContract``. A snapshot of the in-process index records
the position it reflects; the store must then answer which sources changed
after it (every index-visible write: chunks saved, vectors attached, a source
corrected, redacted or deleted), once per source at its latest change, and
the current index entries of those sources. Writes that change nothing an
index holds (cached embeddings, a failed embedding attempt) need not move it.
"""

import msgspec
import pytest

from application.ports import MemoryStore
from application.ports.changes import ChangePosition
from contracts.embedding_queue import _write
from contracts.samples import SPACE, unit
from domain.scopes import LifecycleState

__all__ = ["MemoryStoreChangeLogContract"]

ORG, OTHER = "changes-org-a", "changes-org-b"


async def _changed_after(store: MemoryStore, org: str, after: int) -> list[str]:
    """Every source changed after ``after``, read in pages of two."""
    out: list[str] = []
    while True:
        page = await store.changed_sources(org, after, 2)
        if not page.changes:
            return out
        sequences = [seq for seq, _ in page.changes]
        assert sequences == sorted(sequences) and sequences[0] > after
        out += [sid for _, sid in page.changes]
        after = page.last


class MemoryStoreChangeLogContract:
    @pytest.fixture
    def store(self) -> MemoryStore:
        raise NotImplementedError("provide a `store` fixture")

    async def test_an_unknown_organisation_has_no_position(self, store: MemoryStore) -> None:
        assert await store.change_position("never-prepared") == ChangePosition()
        page = await store.changed_sources("never-prepared", 0, 10)
        assert page.changes == () and page.position == ChangePosition()
        assert await store.index_entries_of("never-prepared", ["s1"]) == []

    async def test_every_index_visible_write_advances_the_sequence(
        self, store: MemoryStore
    ) -> None:
        await store.prepare(ORG, SPACE)
        start = await store.change_position(ORG)
        assert start.epoch
        await store.save_memories([_write("s1", ORG, ["one"]), _write("s2", ORG, ["two"])])
        saved = await store.change_position(ORG)
        assert saved.epoch == start.epoch and saved.sequence > start.sequence
        assert sorted(await _changed_after(store, ORG, start.sequence)) == ["s1", "s2"]
        await store.save_memories([_write("s3", ORG, ["three"], vectors=True)])
        assert await _changed_after(store, ORG, saved.sequence) == ["s3"]
        before_attach = await store.change_position(ORG)
        assert await store.attach_vectors(ORG, SPACE.model, {"s1-0": unit([1, 0, 0, 0])})
        assert await _changed_after(store, ORG, before_attach.sequence) == ["s1"]
        before_hide = await store.change_position(ORG)
        (s2,) = (await store.get_sources(ORG, ["s2"])).values()
        hidden = msgspec.structs.replace(s2, version=2, lifecycle=LifecycleState.HIDDEN)
        await store.update_source(hidden, expected_version=1, drop_text=False)
        assert await _changed_after(store, ORG, before_hide.sequence) == ["s2"]
        before_delete = await store.change_position(ORG)
        (s3,) = (await store.get_sources(ORG, ["s3"])).values()
        gone = msgspec.structs.replace(s3, version=2, lifecycle=LifecycleState.DELETED)
        await store.update_source(gone, expected_version=1, drop_text=True)
        assert await _changed_after(store, ORG, before_delete.sequence) == ["s3"]
        # each source once, at its latest change, oldest change first
        assert await _changed_after(store, ORG, start.sequence) == ["s1", "s2", "s3"]
        assert await _changed_after(store, ORG, (await store.change_position(ORG)).sequence) == []

    async def test_writes_that_change_no_index_row_leave_it(self, store: MemoryStore) -> None:
        await store.prepare(ORG, SPACE)
        await store.save_memories([_write("s1", ORG, ["one"])])
        at = await store.change_position(ORG)
        await store.cache_embeddings(ORG, SPACE.model, {"h": unit([1, 0, 0, 0])})
        await store.embedding_failed(ORG, ["s1-0"], dead_after=5)
        assert await store.attach_vectors(ORG, SPACE.model, {"nope": unit([1, 0, 0, 0])}) == []
        assert await _changed_after(store, ORG, at.sequence) == []

    async def test_index_entries_of_sources_are_the_scan_entries(
        self, store: MemoryStore
    ) -> None:
        await store.prepare(ORG, SPACE)
        await store.save_memories(
            [_write("s1", ORG, ["a", "b"], vectors=True), _write("s2", ORG, ["c"])]
        )
        scanned = {e.chunk_id: e for e in await store.scan_index_entries(ORG, None, 100)}
        got = await store.index_entries_of(ORG, ["s2", "s1", "nope"])
        assert [e.chunk_id for e in got] == ["s1-0", "s1-1", "s2-0"]
        assert got == [scanned[e.chunk_id] for e in got]
        (s1,) = (await store.get_sources(ORG, ["s1"])).values()
        redacted = msgspec.structs.replace(s1, version=2, lifecycle=LifecycleState.DELETED)
        await store.update_source(redacted, expected_version=1, drop_text=True)
        assert [e.chunk_id for e in await store.index_entries_of(ORG, ["s1", "s2"])] == ["s2-0"]

    async def test_organisations_have_their_own_sequences(self, store: MemoryStore) -> None:
        await store.prepare(ORG, SPACE)
        await store.prepare(OTHER, SPACE)
        await store.save_memories([_write("s1", ORG, ["one"])])
        assert await _changed_after(store, OTHER, 0) == []
        assert await store.index_entries_of(OTHER, ["s1"]) == []
        first = await store.change_position(ORG)
        await store.drop_organization(ORG)
        await store.prepare(ORG, SPACE)
        again = await store.change_position(ORG)
        assert again.epoch != first.epoch  # a recreated organisation starts another life
