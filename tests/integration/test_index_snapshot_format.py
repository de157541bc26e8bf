"""The snapshot files round-trip an in-process index exactly, and damage is detected.

Below the restart tests (test_index_snapshots.py): one organisation's index
with every kind of row (pending, re-indexed, removed, hidden, filtered by
facets and time) is written, checked and read back; the copy answers every
query exactly as the original, and the checks refuse a changed byte.
"""

import random
from pathlib import Path

import msgspec
import numpy as np
import pytest

from adapters.inmemory.hashing_embedder import HashingEmbedder
from adapters.inmemory.memory_store import InMemoryMemoryStore
from adapters.inprocess.footprint import footprint
from adapters.inprocess.persistent import PersistentInProcessIndex
from adapters.inprocess.snapshot_files import SnapshotFiles, SnapshotRefused
from adapters.inprocess.snapshot_format import (
    FILES,
    STATE_FILE,
    freeze,
    read_index,
    write_files,
)
from application.indexing.snapshots import SnapshotOutcome
from application.ports.changes import ChangePosition
from domain.scopes import LifecycleState
from tests.support.index_world import ORG, World, answers, queries, without_history

QUERIES = queries(random.Random(5), 8)
SPACE = HashingEmbedder(dimension=32).space


async def _index_with_history(root: Path) -> PersistentInProcessIndex:
    store = InMemoryMemoryStore()
    await store.prepare(ORG, SPACE)
    index = PersistentInProcessIndex(root)
    world = World(store, index)
    await world.add(30)
    await world.add(5, embedded=False)
    await world.correct("s00002", LifecycleState.HIDDEN)
    await world.correct("s00003", LifecycleState.DELETED)
    await world.attach_pending()
    await world.add(3, embedded=False)  # stay pending: lexical only
    (entry,) = (await store.index_entries_of(ORG, ["s00004"]))[:1]
    await index.add(ORG, [entry])  # a re-indexed chunk: its old row stops answering
    await index.mark_ready(ORG)
    index.set_position(ORG, await store.change_position(ORG))
    return index


async def test_the_files_round_trip_the_index_exactly(tmp_path: Path) -> None:
    index = await _index_with_history(tmp_path / "snapshots")
    org = index._orgs[ORG]
    folder = tmp_path / "one"
    folder.mkdir()
    checks = write_files(freeze(org), folder)
    assert set(checks) == set(FILES)
    copy = read_index(folder)
    assert copy.ids == org.ids and copy.row_of == org.row_of and copy.removed == org.removed
    assert list(copy.texts) == list(org.texts)
    codes = range(len(org.source_ids))
    assert [copy.members.in_turn_order(c) for c in codes] == [
        org.members.in_turn_order(c) for c in codes
    ]
    assert copy.members.orders(org.size).tolist() == org.members.orders(org.size).tolist()
    assert copy.recall_table == org.recall_table and copy.scope_table == org.scope_table
    assert copy.source_ids == org.source_ids and copy.source_code_of == org.source_code_of
    assert copy.facets.sources_with == org.facets.sources_with
    assert copy.facets.rows_with == org.facets.rows_with
    assert copy.vectors is not None and org.vectors is not None
    assert (copy.vectors[: copy.size] == org.vectors[: org.size]).all()
    assert len(copy.vectors) > copy.size and not copy.vectors[copy.size :].any()  # spare rows
    assert len(copy.recall_codes) == len(copy.vectors) == len(copy.has_vector)
    assert org.removed  # a deleted source's rows: their words stay off the disk
    for term, docs, _ in copy.lexical.postings():
        assert not org.removed.intersection(docs), term
    kept = [(t, [d for d in docs if d not in org.removed]) for t, docs, _ in org.lexical.postings()]
    assert {t: d for t, d in kept if d} == {t: docs for t, docs, _ in copy.lexical.postings()}
    held, mapped = footprint(org), footprint(copy)
    # the copy decodes its texts from the mapped blob and reads its postings from the file
    assert held["texts_mapped"] == held["lexical_mapped"] == 0
    assert mapped["texts_mapped"] > 0 and mapped["lexical_mapped"] > 0
    assert mapped["texts"] < held["texts"] / 4 and mapped["lexical"] < held["lexical"]
    restored = PersistentInProcessIndex(tmp_path / "unused")
    restored._orgs[ORG] = copy
    # the same answers; chunk BM25 idf differs where removed rows held the term
    assert without_history(await answers(restored, QUERIES)) == without_history(
        await answers(index, QUERIES)
    )


def _rewrite_state(folder: Path, arrays: dict[str, tuple[str, bytes]]) -> None:
    path = folder / STATE_FILE
    state = msgspec.msgpack.decode(path.read_bytes())
    state["arrays"] = arrays
    path.write_bytes(msgspec.msgpack.encode(state))


async def test_a_snapshot_without_the_sorted_ids_reads_them_into_dicts(tmp_path: Path) -> None:
    index = await _index_with_history(tmp_path / "snapshots")
    org = index._orgs[ORG]
    folder = tmp_path / "one"
    folder.mkdir()
    write_files(freeze(org), folder)
    arrays = msgspec.msgpack.decode((folder / STATE_FILE).read_bytes())["arrays"]
    assert {"id_order", "source_order"} <= set(arrays)
    # as written before a snapshot kept them
    _rewrite_state(folder, {k: v for k, v in arrays.items() if not k.endswith("_order")})
    copy = read_index(folder)
    assert copy.row_of == org.row_of and copy.source_code_of == org.source_code_of
    for name in ("id_order", "source_order"):  # an order naming a row beyond is refused
        dtype, raw = arrays[name]
        beyond = np.frombuffer(raw, dtype=dtype).copy()
        beyond[0] = len(beyond)
        _rewrite_state(folder, arrays | {name: (dtype, beyond.tobytes())})
        with pytest.raises(ValueError, match=name):
            read_index(folder)
        _rewrite_state(folder, arrays | {name: (dtype, raw[:-4])})
        with pytest.raises(ValueError, match=name):
            read_index(folder)


async def test_a_restored_index_keeps_taking_writes(tmp_path: Path) -> None:
    index = await _index_with_history(tmp_path / "snapshots")
    info = await index.save_snapshot(ORG, SPACE)
    assert info is not None and info.rows == index._orgs[ORG].size and info.bytes > 0
    restored = PersistentInProcessIndex(tmp_path / "snapshots")
    load = await restored.restore(ORG, SPACE)
    assert load.outcome is SnapshotOutcome.LOADED and load.info == info
    store = InMemoryMemoryStore()
    await store.prepare(ORG, SPACE)
    for target in (index, restored):  # past the mapped rows: the arrays grow as before
        world = World(store if target is index else InMemoryMemoryStore(), target, seed=21)
        if target is restored:
            await world.store.prepare(ORG, SPACE)
        world.made = 500
        await world.add(40)
        await target.update(ORG, "s00005", LifecycleState.HIDDEN, "closed")
        await target.remove(ORG, "s00006")
    assert without_history(await answers(restored, QUERIES)) == without_history(
        await answers(index, QUERIES)
    )


async def test_every_changed_byte_is_refused(tmp_path: Path) -> None:
    index = await _index_with_history(tmp_path / "snapshots")
    await index.save_snapshot(ORG, SPACE)
    files = SnapshotFiles(tmp_path / "snapshots")
    live = files.live(ORG)
    assert live is not None
    files.check(ORG, SPACE)
    for name in FILES:
        path = live / name
        original = path.read_bytes()
        damaged = bytearray(original)
        damaged[len(damaged) // 2] ^= 0x01
        path.write_bytes(bytes(damaged))
        with pytest.raises(SnapshotRefused) as refused:
            files.check(ORG, SPACE)
        assert refused.value.outcome is SnapshotOutcome.CORRUPT
        path.write_bytes(original)
    files.check(ORG, SPACE)


async def test_a_second_save_replaces_the_first_and_leaves_one_folder(tmp_path: Path) -> None:
    index = await _index_with_history(tmp_path / "snapshots")
    first = await index.save_snapshot(ORG, SPACE)
    index.set_position(
        ORG, ChangePosition(epoch=first.position.epoch if first else "", sequence=99)
    )
    second = await index.save_snapshot(ORG, SPACE)
    assert second is not None and second.position.sequence == 99
    home = SnapshotFiles(tmp_path / "snapshots").folder(ORG)
    assert sorted(p.name for p in home.iterdir())[0] == "CURRENT"
    assert len([p for p in home.iterdir() if p.is_dir()]) == 1
    await index.drop(ORG)
    assert not home.exists()


async def test_writes_after_a_restore_land_in_the_spare_rows_without_copying_the_matrix(
    tmp_path: Path,
) -> None:
    index = await _index_with_history(tmp_path / "snapshots")
    await index.save_snapshot(ORG, SPACE)
    restored = PersistentInProcessIndex(tmp_path / "snapshots")
    await restored.restore(ORG, SPACE)
    org = restored._orgs[ORG]
    assert isinstance(org.vectors, np.memmap)
    spare = len(org.vectors) - org.size
    world = World(InMemoryMemoryStore(), restored, seed=4)
    await world.store.prepare(ORG, SPACE)
    world.made = 700
    while org.size + 4 < len(org.vectors):  # fill the spare rows, not past them
        await world.add(1)
    assert isinstance(org.vectors, np.memmap) and spare > 0  # still the mapped file
    await world.add(5)  # past the capacity: the matrix grows into memory, as before
    assert not isinstance(org.vectors, np.memmap) and len(org.vectors) >= org.size
