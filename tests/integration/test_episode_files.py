"""The episode postings persisted with the snapshot: mapped on open, added after a build,
refused when they disagree, and the episode leg answering as the full scoring throughout.

The reference is ``group_scores`` over every row posting (as in test_bm25_topk).
"""

import logging
import random
from pathlib import Path

import msgspec
import numpy as np
import pytest

from adapters.inprocess import episode_files
from adapters.inprocess.footprint import footprint
from adapters.inprocess.persistent import PersistentInProcessIndex
from adapters.inprocess.snapshot_files import SnapshotFiles
from adapters.inprocess.snapshot_format import freeze, read_index, write_files
from application.indexing.snapshots import SnapshotOutcome
from application.ports.changes import ChangePosition
from application.ports.records import EmbeddingSpace
from domain.lifecycle import RECALL_CLOSED
from domain.scopes import LifecycleState
from tests.integration.test_bm25_topk import ALL, _assert_same, _entries, _reference

SPACE = EmbeddingSpace(model="test", dimension=2)
QUERIES = ("the barm cotk", "what i dimp", "fenx gumk hoxl the", "absent the")


def _eager(index: PersistentInProcessIndex) -> None:
    """As past 20k rows, but built on the caller's thread (a test waits for nothing)."""
    org = index._orgs["o"]
    org.episodes.min_rows, org.episodes.sync_below = 0, 1 << 30


async def _check(index: PersistentInProcessIndex) -> None:
    for query in QUERIES:
        hits = await index.episode_lexical("o", query, 7, ALL)
        want = await _reference(index, query, 7)
        every = np.asarray([s for _, s in want] or [0.0])
        _assert_same(want, [(h.item_id, h.score) for h in hits], every)


async def _filled(root: Path, rows: int = 900, *, built: bool) -> PersistentInProcessIndex:
    index = PersistentInProcessIndex(root)
    await index.add("o", _entries(random.Random(5), rows))
    await index.mark_ready("o")
    index.set_position("o", ChangePosition(epoch="e", sequence=1))
    if built:
        _eager(index)
        await _check(index)
        assert index._orgs["o"].episodes.postings is not None
    assert await index.save_snapshot("o", SPACE) is not None
    return index


async def _restored(root: Path) -> PersistentInProcessIndex:
    index = PersistentInProcessIndex(root)
    load = await index.restore("o", SPACE)
    assert load.outcome is SnapshotOutcome.LOADED
    return index


def _listed(root: Path) -> set[str]:
    manifest = SnapshotFiles(root).manifest("o")
    assert manifest is not None
    return set(manifest.files) & set(episode_files.EPISODE_FILES)


async def test_a_snapshot_saved_after_the_build_maps_them(tmp_path: Path) -> None:
    await _filled(tmp_path, built=True)
    assert _listed(tmp_path) == set(episode_files.EPISODE_FILES)
    index = await _restored(tmp_path)
    org = index._orgs["o"]
    postings = org.episodes.postings
    assert postings is not None and isinstance(postings.groups, np.memmap)
    held = footprint(org)
    assert held["episode_lexical_mapped"] > 0
    assert held["episode_lexical"] < postings.groups.nbytes  # the packed arrays are not held
    _eager(index)
    await _check(index)
    assert org.episodes.postings is postings  # served as mapped: no build ran
    # writes after the snapshot (what a catch-up applies): served exactly, as after a build
    await index.add("o", _entries(random.Random(6), 40, start=900))
    await index.update("o", "s7", LifecycleState.ACTIVE, RECALL_CLOSED)
    await index.remove("o", "s9")
    await _check(index)


async def test_a_snapshot_without_them_gets_them_after_its_first_build(tmp_path: Path) -> None:
    await _filled(tmp_path, built=False)
    assert _listed(tmp_path) == set()
    index = await _restored(tmp_path)
    org = index._orgs["o"]
    assert org.episodes.postings is None
    _eager(index)
    await _check(index)  # builds, then adds them to the snapshot it opened
    postings = org.episodes.postings
    assert postings is not None and isinstance(postings.groups, np.memmap)
    assert _listed(tmp_path) == set(episode_files.EPISODE_FILES)
    await _check(index)
    again = await _restored(tmp_path)
    mapped = again._orgs["o"].episodes.postings
    assert mapped is not None and np.array_equal(mapped.groups, postings.groups)
    _eager(again)
    await _check(again)
    assert again._orgs["o"].episodes.postings is mapped


async def test_a_build_after_a_catch_up_stops_at_the_snapshots_rows(tmp_path: Path) -> None:
    """Rows written after the open are numbered by this process; a restore's catch-up
    may number them otherwise: the build stops at the snapshot's rows (the plan reads
    the rest as each term's tail), so its postings fit the snapshot."""
    await _filled(tmp_path, built=False)
    index = await _restored(tmp_path)
    await index.add("o", _entries(random.Random(7), 10, start=900))
    await index.remove("o", "s3")
    _eager(index)
    await _check(index)
    postings = index._orgs["o"].episodes.postings
    assert postings is not None and postings.rows == 900
    assert isinstance(postings.groups, np.memmap)
    assert _listed(tmp_path) == set(episode_files.EPISODE_FILES)
    again = await _restored(tmp_path)
    assert again._orgs["o"].episodes.postings is not None
    _eager(again)
    await again.add("o", _entries(random.Random(7), 10, start=900))  # the catch-up
    await again.remove("o", "s3")
    await _check(again)


async def test_a_build_past_the_snapshots_rows_is_not_added_to_it(tmp_path: Path) -> None:
    """Many rows since the open: the build counts them; its postings wait for a save."""
    await _filled(tmp_path, built=False)
    index = await _restored(tmp_path)
    await index.add("o", _entries(random.Random(7), 100, start=900))
    _eager(index)
    await _check(index)
    postings = index._orgs["o"].episodes.postings
    assert postings is not None and postings.rows == 1000
    assert _listed(tmp_path) == set()
    assert await index.save_snapshot("o", SPACE) is not None
    assert _listed(tmp_path) == set(episode_files.EPISODE_FILES)  # the save holds them


async def test_postings_counting_a_removed_row_never_reach_the_disk(tmp_path: Path) -> None:
    index = await _filled(tmp_path, built=True)
    await index.remove("o", "s4")
    assert await index.save_snapshot("o", SPACE) is not None
    assert _listed(tmp_path) == set()
    restored = await _restored(tmp_path)
    assert restored._orgs["o"].episodes.postings is None
    _eager(restored)
    await _check(restored)


async def test_a_corrupt_episode_file_drops_only_them(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    await _filled(tmp_path, built=True)
    live = SnapshotFiles(tmp_path).live("o")
    assert live is not None
    path = live / episode_files.GROUPS_FILE
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))
    with caplog.at_level(logging.WARNING, logger="tessera.index"):
        index = await _restored(tmp_path)  # the rest of the snapshot opens
    assert "checksum differs" in caplog.text
    assert index._orgs["o"].episodes.postings is None
    _eager(index)
    await _check(index)


def _rewrite_state(folder: Path, change: str) -> None:
    path = folder / episode_files.STATE_FILE
    state = msgspec.msgpack.decode(path.read_bytes())
    dtype, raw = state["arrays"]["counts"]
    counts = np.frombuffer(raw, dtype=np.dtype(dtype)).copy()
    if change == "counts":
        counts[0] += 1
        state["arrays"]["counts"] = (dtype, counts.tobytes())
    elif change == "rows":
        state["rows"] += 5
    elif change == "episodes":  # too few episodes: some codes fall out of range
        state["arrays"]["counts"] = (dtype, counts[:1].tobytes())
    path.write_bytes(msgspec.msgpack.encode(state))


@pytest.mark.parametrize("change", ["counts", "rows", "episodes", "groups order"])
async def test_postings_that_disagree_with_the_snapshot_are_derived_again(
    tmp_path: Path, change: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Checksums pass (written so): the shape and content checks refuse them."""
    index = await _filled(tmp_path / "snap", built=True)
    org = index._orgs["o"]
    write_files(freeze(org), tmp_path)
    listed = episode_files.EPISODE_FILES
    assert read_index(tmp_path, listed=listed).episodes.postings is not None
    if change == "groups order":
        groups = np.load(tmp_path / episode_files.GROUPS_FILE)
        first = next(n for n in range(len(groups) - 1) if groups[n] < groups[n + 1])
        groups[first], groups[first + 1] = groups[first + 1], groups[first]
        np.save(tmp_path / episode_files.GROUPS_FILE, groups)
    else:
        _rewrite_state(tmp_path, change)
    with caplog.at_level(logging.WARNING, logger="tessera.index"):
        restored = read_index(tmp_path, listed=listed)
    assert restored.episodes.postings is None
    assert "episode postings of a restored index" in caplog.text


async def test_an_evicted_organisation_maps_them_back(tmp_path: Path) -> None:
    """Evicted when idle, restored at the next use: mapped again, no build."""
    index = await _filled(tmp_path, built=True)
    await index.evict("o")
    assert index.resident_orgs() == []
    assert (await index.restore("o", SPACE)).outcome is SnapshotOutcome.LOADED
    postings = index._orgs["o"].episodes.postings
    assert postings is not None and isinstance(postings.groups, np.memmap)
    _eager(index)
    await _check(index)
    assert index._orgs["o"].episodes.postings is postings


async def test_a_build_into_the_files_equals_one_held_in_memory(tmp_path: Path) -> None:
    from adapters.inprocess.episode_postings import build

    index = await _filled(tmp_path / "snap", 3000, built=False)
    org = index._orgs["o"]
    size = org.size
    codes, counted = org.source_codes[:size].copy(), org.recall_codes[:size] != 0
    counted[::7] = False
    n = len(org.source_ids)
    held = build(org.lexical.parts(), codes, n, counted)
    (tmp_path / "out").mkdir()
    streamed = build(
        org.lexical.parts(), codes, n, counted, episode_files.FileSink(tmp_path / "out")
    )
    assert isinstance(streamed.groups, np.memmap) and isinstance(streamed.tfs, np.memmap)
    assert streamed.terms == held.terms
    for name in ("counted", "counts", "offsets", "groups", "tfs", "max_tfs"):
        assert np.array_equal(getattr(streamed, name), getattr(held, name)), name
    assert streamed.tfs.dtype == held.tfs.dtype == np.uint16
    # what a restore reads back of them: the same postings
    checks = episode_files.write(streamed, tmp_path / "out")
    assert set(checks) == set(episode_files.EPISODE_FILES)
    back = episode_files.read(tmp_path / "out", size, org.source_codes, n, org.removed)
    assert np.array_equal(back.groups, held.groups) and np.array_equal(back.max_tfs, held.max_tfs)


async def test_a_sink_that_fails_costs_a_build_in_memory(tmp_path: Path) -> None:
    await _filled(tmp_path, built=False)
    index = await _restored(tmp_path)
    org = index._orgs["o"]

    def gone(rows: int) -> episode_files.FileSink:
        return episode_files.FileSink(tmp_path / "no such folder")

    org.episodes.sink = gone
    _eager(index)
    await _check(index)  # built held, then written by the persist step
    assert org.episodes.postings is not None
    assert _listed(tmp_path) == set(episode_files.EPISODE_FILES)
