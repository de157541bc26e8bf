"""The crash benchmark's check finds every way an index can disagree with its store."""

import msgspec

from adapters.inmemory.memory_store import InMemoryMemoryStore
from adapters.inprocess.index import InProcessIndex
from application.ports.records import IndexEntry
from benchmarks._agreement import LEXICAL_DEPTH, check_agreement, searchable
from domain.scopes import LifecycleState
from tests.support.index_world import ORG, World


async def _world() -> tuple[InMemoryMemoryStore, InProcessIndex, World]:
    store, index = InMemoryMemoryStore(), InProcessIndex()
    world = World(store, index, seed=3)
    await store.prepare(ORG, world.embedder.space)
    await world.add(12)
    await world.add(4, embedded=False)  # pending: lexical candidates, no vector yet
    await index.mark_ready(ORG)
    return store, index, world


async def _entries(store: InMemoryMemoryStore) -> list[IndexEntry]:
    return await store.scan_index_entries(ORG, None, 10_000)


async def test_an_index_written_through_agrees_and_finds_every_chunk() -> None:
    store, index, world = await _world()
    await world.correct("s00002", LifecycleState.HIDDEN)  # closed: in neither side
    found = await check_agreement(store, index, ORG)
    assert found.agrees, found
    entries = await _entries(store)
    assert found.stored_chunks == len(entries)
    assert found.stored_open == found.index_live < found.stored_chunks
    assert 0 < found.stored_with_vector == found.index_live_with_vector < found.stored_open
    sample = await searchable(index, ORG, entries)
    assert sample.asked == found.stored_open
    assert sample.by_words == sample.asked
    assert sample.by_vector == sample.with_vector == found.stored_with_vector


async def test_a_chunk_only_the_index_holds_is_reported_extra() -> None:
    store, index, _ = await _world()
    some = (await _entries(store))[0]
    ghost = msgspec.structs.replace(some, chunk_id="ghost-0", source_id="ghost")
    await index.add(ORG, [ghost])  # never saved: what a lost write would leave behind
    found = await check_agreement(store, index, ORG)
    assert not found.agrees
    assert found.extra == ["ghost-0"] and found.counts["extra"] == 1
    assert found.counts["missing"] == 0
    assert found.vector_extra == (["ghost-0"] if some.vector is not None else [])


async def test_a_missing_chunk_and_a_missing_vector_are_reported() -> None:
    store, index, _ = await _world()
    entries = await _entries(store)
    lost = next(e for e in entries if e.vector is not None)
    await index.remove(ORG, lost.source_id)
    found = await check_agreement(store, index, ORG)
    assert not found.agrees
    assert lost.chunk_id in found.missing
    assert found.counts["missing"] >= 1 and found.counts["extra"] == 0
    assert lost.chunk_id in found.vector_missing
    sample = await searchable(index, ORG, [lost])
    assert (sample.asked, sample.by_words, sample.by_vector) == (1, 0, 0)
    assert sample.not_found_by_words == sample.not_found_by_vector == [lost.chunk_id]


async def test_a_chunk_crowded_out_by_its_own_duplicates_is_tied_not_lost() -> None:
    store, index, _ = await _world()
    some = next(e for e in await _entries(store) if e.vector is not None)
    copies = [
        msgspec.structs.replace(some, chunk_id=f"dup-{n:03d}", source_id=f"dup-{n:03d}")
        for n in range(LEXICAL_DEPTH + 5)
    ]
    await index.add(ORG, copies)
    newest = copies[-1]  # ties go to the older rows: the newest is past both cuts
    sample = await searchable(index, ORG, [newest])
    assert (sample.by_words, sample.tied_with_duplicates_by_words, sample.lost_by_words) == (
        0, 1, 0,
    )  # fmt: skip
    assert (sample.by_vector, sample.tied_with_duplicates_by_vector) == (0, 1)
    assert sample.all_found
    other = msgspec.structs.replace(newest, text="kettle glacier walnut basil quartz")
    alone = await searchable(index, ORG, [other])  # not indexed under that text: a real loss
    assert alone.lost_by_words == 1 and not alone.all_found
