"""The vector index (a faiss inverted file) travels in the snapshot: read back, checked first.

The graph is forced on from the first row (``_FORCED``) so a small index has
one. A restored index must answer exactly as the one that wrote it and keep
taking writes; a graph file that is absent, of another kind or for other
rows is rebuilt from the vectors (with a log line); a changed byte is refused
by the manifest's checks; a removed source's vectors never reach the graph
file; and a graph held for a write does not grow until the write ends.
"""

import logging
import random
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pytest

from adapters.inmemory.memory_store import InMemoryMemoryStore
from adapters.inprocess import graph_retrain, snapshot_format
from adapters.inprocess.ann import AnnPolicy, VectorGraph
from adapters.inprocess.graph_file import GRAPH_FILE, read_graph
from adapters.inprocess.index import _OrgIndex
from adapters.inprocess.persistent import PersistentInProcessIndex
from adapters.inprocess.snapshot_files import SnapshotFiles, SnapshotRefused
from adapters.inprocess.snapshot_format import freeze, read_index, write_files
from application.indexing.snapshots import SnapshotOutcome
from application.ports import MemoryStore
from domain.scopes import LifecycleState
from tests.support.index_world import (
    FILTERS,
    ORG,
    World,
    answers,
    queries,
    without_history,
)

_FORCED = AnnPolicy(min_rows=0, exact_rows=0, min_share=0.0)
_MAPPED = AnnPolicy(min_rows=0, exact_rows=0, min_share=0.0, map_lists=True)
QUERIES = queries(random.Random(11), 6)


async def _world(
    root: Path, policy: AnnPolicy | None = _FORCED
) -> tuple[World, PersistentInProcessIndex]:
    store: MemoryStore = InMemoryMemoryStore()
    index = PersistentInProcessIndex(root, ann_policy=policy)
    await store.prepare(ORG, World(store, None).embedder.space)
    world = World(store, index)
    await world.add(40)
    await world.add(4, embedded=False)
    await world.correct("s00003", LifecycleState.DELETED)
    await world.correct("s00005", LifecycleState.HIDDEN)
    await world.attach_pending()
    await world.add(2, embedded=False)
    await index.mark_ready(ORG)
    index.set_position(ORG, await store.change_position(ORG))
    return world, index


def _codes(graph: Any) -> np.ndarray:
    """Every row's vector as the index file holds it (its f16 codes, decoded)."""
    index = graph.native
    return np.asarray(index.reconstruct_n(0, int(index.ntotal)))


async def test_a_restored_index_reads_its_graph_and_answers_the_same(tmp_path: Path) -> None:
    world, index = await _world(tmp_path / "snap")
    org = index._orgs[ORG]
    assert org.graph is not None and org.graph.labelled > 0
    await index.save_snapshot(ORG, world.embedder.space)
    live = SnapshotFiles(tmp_path / "snap").live(ORG)
    assert live is not None and (live / GRAPH_FILE).is_file()
    restored = PersistentInProcessIndex(tmp_path / "snap", ann_policy=_FORCED)
    load = await restored.restore(ORG, world.embedder.space)
    assert load.outcome is SnapshotOutcome.LOADED
    copy = restored._orgs[ORG]
    assert copy.graph_restored and copy.graph is not None
    assert not copy.graph.mapped  # the default: its lists read into memory
    assert (copy.graph.labelled, copy.graph.stale) == (org.graph.labelled, org.graph.stale)
    assert without_history(await answers(restored, QUERIES)) == without_history(
        await answers(index, QUERIES)
    )
    for target in (index, restored):  # both keep taking writes, the graph grows alike
        other = World(InMemoryMemoryStore(), target, seed=3)
        await other.store.prepare(ORG, world.embedder.space)
        other.made = 300
        await other.add(12)
        await target.remove(ORG, "s00007")
    graph, first = restored._orgs[ORG].graph, index._orgs[ORG].graph
    assert graph is not None and first is not None
    assert (graph.labelled, graph.stale) == (first.labelled, first.stale)
    assert without_history(await answers(restored, QUERIES)) == without_history(
        await answers(index, QUERIES)
    )


async def test_a_snapshot_without_a_usable_graph_rebuilds_it_and_says_why(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    _, index = await _world(tmp_path / "snap")
    org = index._orgs[ORG]
    folder = tmp_path / "files"
    folder.mkdir()
    frozen = freeze(org)
    write_files(frozen, folder)
    frozen.release()
    (folder / GRAPH_FILE).unlink()
    with caplog.at_level(logging.WARNING, logger="tessera.index"):
        copy = read_index(folder, _FORCED)
    assert not copy.graph_restored and copy.graph is not None and org.graph is not None
    assert copy.graph.labelled == org.graph.labelled  # up to the pending rows at the end
    assert "rebuilding the vector index" in caplog.text and "holds no graph" in caplog.text
    restored = PersistentInProcessIndex(tmp_path / "unused", ann_policy=_FORCED)
    restored._orgs[ORG] = copy
    assert without_history(await answers(restored, QUERIES)) == without_history(
        await answers(index, QUERIES)
    )
    # an exact-only reader ignores the graph: no graph, no build
    assert read_index(folder, None).graph is None


async def test_a_graph_file_for_other_rows_or_of_another_kind_is_not_used(tmp_path: Path) -> None:
    _, index = await _world(tmp_path / "snap")
    org = index._orgs[ORG]
    frozen = freeze(org)
    write_files(frozen, tmp_path)
    frozen.release()
    meta = frozen.graph.meta if frozen.graph else None
    assert meta is not None
    dim, rows = 32, org.size
    good, why = read_graph(tmp_path, meta, dim, rows, _FORCED)
    assert good is not None and why == ""
    assert meta.trained > rows // 4  # trained on the rows there when it was made
    cases = {
        "another kind": msgspec.structs.replace(meta, kind="usearch-i8"),
        "more rows than the snapshot": msgspec.structs.replace(meta, labelled=rows + 1),
        "other rows than the file": msgspec.structs.replace(meta, labelled=meta.labelled - 1),
        "training not said (an older release's file)": msgspec.structs.replace(meta, trained=0),
    }
    for case, other in cases.items():
        graph, why = read_graph(tmp_path, other, dim, rows, _FORCED)
        assert graph is None and why, case
    # grown past its training: read (it serves), and retrained beside it (graph_retrain)
    grown = msgspec.structs.replace(meta, trained=rows // 4)
    graph, why = read_graph(tmp_path, grown, dim, rows, _FORCED)
    assert graph is not None and why == "" and graph.trained_rows == rows // 4
    graph, why = read_graph(tmp_path, meta, dim + 1, rows, _FORCED)
    assert graph is None and "does not match" in why
    (tmp_path / GRAPH_FILE).write_bytes(b"not a faiss index")
    graph, why = read_graph(tmp_path, meta, dim, rows, _FORCED)
    assert graph is None and "unreadable" in why


async def test_a_changed_byte_of_the_graph_is_refused(tmp_path: Path) -> None:
    world, index = await _world(tmp_path / "snap")
    await index.save_snapshot(ORG, world.embedder.space)
    files = SnapshotFiles(tmp_path / "snap")
    live = files.live(ORG)
    assert live is not None
    path = live / GRAPH_FILE
    damaged = bytearray(path.read_bytes())
    damaged[len(damaged) // 2] ^= 0x01
    path.write_bytes(bytes(damaged))
    with pytest.raises(SnapshotRefused) as refused:
        files.check(ORG, world.embedder.space)
    assert refused.value.outcome is SnapshotOutcome.CORRUPT
    # an open checks the files beside its read: the graph is refused before it is parsed
    restored = PersistentInProcessIndex(tmp_path / "snap", ann_policy=_FORCED)
    load = await restored.restore(ORG, world.embedder.space)
    assert load.outcome is SnapshotOutcome.CORRUPT
    assert load.detail == f"{GRAPH_FILE}: checksum differs"
    assert ORG not in restored._orgs


async def test_a_removed_sources_vectors_never_reach_the_graph_file(tmp_path: Path) -> None:
    world, index = await _world(tmp_path / "snap")
    org = index._orgs[ORG]
    gone = org.rows_of("s00003")
    assert gone and all(r < (org.graph.labelled if org.graph else 0) for r in gone)
    await index.save_snapshot(ORG, world.embedder.space)
    restored = PersistentInProcessIndex(tmp_path / "snap", ann_policy=_FORCED)
    await restored.restore(ORG, world.embedder.space)
    codes = _codes(restored._orgs[ORG].graph)
    assert not codes[gone].any()
    kept = [r for r in range(org.size) if r not in org.removed and org.has_vector[r]]
    assert codes[kept].any(axis=1).all()


async def test_a_held_graph_does_not_grow_and_its_rows_are_still_found(tmp_path: Path) -> None:
    world, index = await _world(tmp_path / "snap")
    await world.attach_pending()  # no row waits for its vector: the graph reaches the end
    org = index._orgs[ORG]
    assert org.graph is not None
    labelled = org.graph.labelled
    assert labelled == org.size
    frozen = freeze(org)
    writer = World(world.store, index, seed=9)
    writer.made = 500
    new = await writer.add(5)  # written while the files are written
    assert org.graph.labelled == labelled < org.size
    (vector,) = await world.embedder.embed(["anything at all"])
    found = {h.item_id for h in await index.vector(ORG, vector, 10_000, FILTERS[0])}
    assert {org.ids[r] for r in range(labelled, org.size) if org.has_vector[r]} <= found
    assert new
    frozen.release()
    org.extend_graph()
    assert org.graph.labelled == org.size


async def test_an_index_rebuilt_on_open_is_saved_at_the_next_save(tmp_path: Path) -> None:
    world, writer = await _world(tmp_path / "snap", policy=None)  # exact only: no index file
    await writer.save_snapshot(ORG, world.embedder.space)
    assert writer.unsaved_changes(ORG) == 0
    reader = PersistentInProcessIndex(tmp_path / "snap", ann_policy=_FORCED)
    load = await reader.restore(ORG, world.embedder.space)
    assert load.outcome is SnapshotOutcome.LOADED and reader._orgs[ORG].graph is not None
    assert reader.unsaved_changes(ORG) == 1  # built here: the clean shutdown saves it
    await reader.save_snapshot(ORG, world.embedder.space)
    again = PersistentInProcessIndex(tmp_path / "snap", ann_policy=_FORCED)
    await again.restore(ORG, world.embedder.space)
    assert again._orgs[ORG].graph_restored and again.unsaved_changes(ORG) == 0


async def _saved_and_mapped(
    root: Path, *, settled: bool = False
) -> tuple[World, PersistentInProcessIndex, PersistentInProcessIndex, Any]:
    """A world's index saved, and a second index restored from that snapshot with its
    lists mapped (``settled``: every pending vector attached first)."""
    world, index = await _world(root)
    if settled:
        await world.attach_pending()
    await index.save_snapshot(ORG, world.embedder.space)
    restored = PersistentInProcessIndex(root, ann_policy=_MAPPED)
    await restored.restore(ORG, world.embedder.space)
    graph = restored._orgs[ORG].graph
    assert graph is not None and graph.mapped  # lists are file pages, not copied
    return world, index, restored, graph


async def _write_more(world: World, targets: tuple[PersistentInProcessIndex, ...]) -> None:
    """Six more sources written through each of ``targets`` alike."""
    for target in targets:
        other = World(InMemoryMemoryStore(), target, seed=3)
        await other.store.prepare(ORG, world.embedder.space)
        other.made = 300
        await other.add(6)


async def test_a_restored_index_maps_its_lists_until_a_change_needs_them_in_memory(
    tmp_path: Path,
) -> None:
    import faiss

    world, index, restored, graph = await _saved_and_mapped(tmp_path / "snap")
    # a search of mapped lists starts no prefetch threads (they cost 2x its time)
    assert faiss.downcast_InvertedLists(graph.native.invlists).prefetch_nthread == 0
    labelled = graph.labelled
    await _write_more(world, (index, restored))  # a few rows: the exactly scanned tail
    assert graph.mapped and graph.labelled == labelled < restored._orgs[ORG].size
    assert without_history(await answers(restored, QUERIES)) == without_history(
        await answers(index, QUERIES)
    )
    for target in (index, restored):  # a removal zeroes codes: the lists are copied first
        await target.remove(ORG, "s00007")
    assert not graph.mapped
    assert without_history(await answers(restored, QUERIES)) == without_history(
        await answers(index, QUERIES)
    )


async def test_a_mapped_index_is_copied_into_each_new_snapshot_even_after_its_file_went(
    tmp_path: Path,
) -> None:
    world, index, restored, _ = await _saved_and_mapped(tmp_path / "snap")
    files = SnapshotFiles(tmp_path / "snap")
    first = files.live(ORG)
    assert first is not None
    original = (first / GRAPH_FILE).read_bytes()
    for _ in range(2):  # the second save copies from a file the first one deleted
        await restored.save_snapshot(ORG, world.embedder.space)
        live = files.live(ORG)
        assert live is not None and live != first and not first.exists()
        assert (live / GRAPH_FILE).read_bytes() == original
        first = live
    again = PersistentInProcessIndex(tmp_path / "snap", ann_policy=_FORCED)
    load = await again.restore(ORG, world.embedder.space)
    assert load.outcome is SnapshotOutcome.LOADED and again._orgs[ORG].graph_restored
    assert without_history(await answers(again, QUERIES)) == without_history(
        await answers(index, QUERIES)
    )


async def test_a_source_removed_after_a_restore_leaves_the_next_index_file(
    tmp_path: Path,
) -> None:
    world, _, restored, _ = await _saved_and_mapped(tmp_path / "snap")
    gone = restored._orgs[ORG].rows_of("s00009")
    assert gone and _codes(restored._orgs[ORG].graph)[gone].any()
    await restored.remove(ORG, "s00009")
    await restored.save_snapshot(ORG, world.embedder.space)
    again = PersistentInProcessIndex(tmp_path / "snap", ann_policy=_FORCED)
    await again.restore(ORG, world.embedder.space)
    assert not _codes(again._orgs[ORG].graph)[gone].any()


async def test_a_tail_past_its_bound_copies_the_mapped_lists_and_joins_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from adapters.inprocess import ann

    world, index, restored, graph = await _saved_and_mapped(tmp_path / "snap", settled=True)
    monkeypatch.setattr(ann, "_TAIL_MAX", 3)
    await _write_more(world, (index, restored))  # more rows than the tail may hold
    assert not graph.mapped and graph.labelled == restored._orgs[ORG].size
    assert without_history(await answers(restored, QUERIES)) == without_history(
        await answers(index, QUERIES)
    )


def _retrain_forced(monkeypatch: pytest.MonkeyPatch, *, threaded: bool) -> None:
    """Every restored graph is retrained (as one grown past its training would be)."""
    monkeypatch.setattr(snapshot_format, "retrain_reason", lambda *_: "the test asks")
    start = _OrgIndex.start_retrain
    monkeypatch.setattr(
        _OrgIndex, "start_retrain", lambda self, threaded=threaded: start(self, threaded=threaded)
    )


async def _due_for_retraining(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, threaded: bool
) -> tuple[World, PersistentInProcessIndex, PersistentInProcessIndex]:
    """A saved world, and a second index (not restored yet) that will retrain its graph."""
    world, index = await _world(tmp_path / "snap")
    await index.save_snapshot(ORG, world.embedder.space)
    _retrain_forced(monkeypatch, threaded=threaded)
    return world, index, PersistentInProcessIndex(tmp_path / "snap", ann_policy=_FORCED)


async def test_a_graph_due_for_retraining_serves_while_a_new_one_is_trained(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    world, index, restored = await _due_for_retraining(tmp_path, monkeypatch, threaded=True)
    with caplog.at_level(logging.INFO, logger="tessera.index"):
        load = await restored.restore(ORG, world.embedder.space)
    assert load.outcome is SnapshotOutcome.LOADED
    assert "in the background" in caplog.text and "the test asks" in caplog.text
    copy = restored._orgs[ORG]
    old = copy.graph
    assert copy.graph_restored and old is not None and copy.retrain is not None
    assert restored.unsaved_changes(ORG) == 0
    held = restored.residency(ORG)
    assert held is not None and held.retraining  # tessera status says so
    assert copy.retrain.wait(60)
    assert copy.graph is old  # adopted at the next search, on the event loop
    assert without_history(await answers(restored, QUERIES)) == without_history(
        await answers(index, QUERIES)
    )
    assert copy.retrain is None and copy.graph is not old and not copy.graph_restored
    assert copy.graph is not None and copy.graph.labelled == old.labelled
    assert restored.unsaved_changes(ORG) == 1  # the next save keeps the new graph
    held = restored.residency(ORG)
    assert held is not None and not held.retraining
    await restored.save_snapshot(ORG, world.embedder.space)
    monkeypatch.undo()
    again = PersistentInProcessIndex(tmp_path / "snap", ann_policy=_FORCED)
    await again.restore(ORG, world.embedder.space)
    assert again._orgs[ORG].graph_restored and again._orgs[ORG].retrain is None


async def test_what_changed_during_a_retrain_reaches_the_new_graph(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # built at the restore, adopted later
    world, index, restored = await _due_for_retraining(tmp_path, monkeypatch, threaded=False)
    await restored.restore(ORG, world.embedder.space)
    copy = restored._orgs[ORG]
    retrain = copy.retrain
    assert retrain is not None and retrain.finished and retrain.result is not None
    built = retrain.result
    gone = copy.rows_of("s00007")
    assert gone and _codes(built)[gone].any(axis=1).all()  # read before the removal
    for target in (index, restored):  # removed while the new graph waits to be adopted
        await target.remove(ORG, "s00007")
    assert retrain.forgotten >= set(gone) and copy.graph is not built
    assert without_history(await answers(restored, QUERIES)) == without_history(
        await answers(index, QUERIES)
    )
    assert copy.graph is built
    assert not _codes(built)[gone].any()  # zeroed before it served or could be saved
    assert copy.retrain is None
    # a row the new graph holds, given another vector while a retrain waits: scored exactly
    copy.start_retrain(threaded=False)
    waiting = copy.retrain
    assert waiting is not None and waiting.result is not None
    row = copy.row_of["s00001-0"]
    assert row < waiting.result.labelled and row not in waiting.result.stale
    other = (await world.embedder.embed(["another vector for this row"]))[0]
    for target in (index, restored):  # the retrained graph adopted at this write
        await target.attach_vectors(ORG, {"s00001-0": other})
    assert copy.graph is waiting.result and row in copy.graph.stale
    pending = await world.store.pending_embeddings(ORG, 1000)  # rows with no vector yet
    vectors = await world.embedder.embed([p.text for p in pending])
    got = {p.chunk_id: v for p, v in zip(pending, vectors, strict=True)}
    assert got and copy.retrain is None
    for target in (index, restored):
        await target.attach_vectors(ORG, got)
    assert without_history(await answers(restored, QUERIES)) == without_history(
        await answers(index, QUERIES)
    )


async def test_a_failed_retrain_leaves_the_restored_graph_serving(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    world, index, restored = await _due_for_retraining(tmp_path, monkeypatch, threaded=False)

    class Broken(VectorGraph):
        def extend(self, *_: Any, **__: Any) -> None:
            raise MemoryError("no room for the lists")

    monkeypatch.setattr(graph_retrain, "VectorGraph", Broken)  # the retrain's build alone
    with caplog.at_level(logging.ERROR, logger="tessera.index"):
        await restored.restore(ORG, world.embedder.space)
    assert "retraining the vector index" in caplog.text
    copy = restored._orgs[ORG]
    old = copy.graph
    monkeypatch.undo()
    assert without_history(await answers(restored, QUERIES)) == without_history(
        await answers(index, QUERIES)
    )
    assert copy.graph is old and copy.graph_restored and copy.retrain is None
