"""The benchmarks open a store as ``tessera serve`` would for the index they time."""

from pathlib import Path

import pytest

from benchmarks._data import Corpus
from benchmarks._wiring import native_search_for
from benchmarks.latency import _parse, _plans


def test_only_the_native_index_keeps_surreals_search_indexes() -> None:
    assert native_search_for("inprocess") is False  # serve drops them with this index
    assert native_search_for("surreal") is True
    assert native_search_for("both") is True  # one store for both arms: the native one reads them
    with pytest.raises(ValueError, match="unknown index"):
        native_search_for("faiss")


def _corpus() -> Corpus:
    return Corpus(turns=[f"turn {n}" for n in range(50)], questions=[f"q {n}?" for n in range(30)])


@pytest.mark.parametrize(("index", "native"), [("inprocess", [False]), ("both", [True, True])])
def test_the_latency_plans_open_the_store_for_their_index(index: str, native: list[bool]) -> None:
    args = _parse(["--chunks", "10", "--index", index, "--queries", "5", "--remembers", "2"])
    plans = _plans(args, _corpus(), "mem://", [f"text {n}" for n in range(400)])
    assert [p.native_search for p in plans] == native


def test_restart_phases_are_checked_and_kept_in_order() -> None:
    from benchmarks.restart import phases_of

    assert phases_of("snapshot") == ["snapshot"]
    assert phases_of(" first, snapshot,after_crash ") == ["first", "snapshot", "after_crash"]
    for bad in ("", "warm", "snapshot,warm"):
        with pytest.raises(ValueError, match="--phases"):
            phases_of(bad)


def test_recall_counts_ids_and_as_good_counts_equally_near_rows() -> None:
    from benchmarks.store_recall import as_good_at, overlap_at

    assert overlap_at(["a", "b", "x"], ["a", "b", "c"], 3) == 2 / 3
    exact = [0.9, 0.8, 0.7]
    assert as_good_at([0.9, 0.8, 0.7], exact, 3) == 1.0  # other ids, the same distances
    assert as_good_at([0.9, 0.8, 0.5], exact, 3) == 2 / 3  # one really farther
    assert as_good_at([0.9], exact, 3) == 1 / 3  # fewer hits than asked
    assert as_good_at([], [], 10) == 1.0


def test_the_lists_read_are_the_nearest_centroids_and_shares_skip_empty_parts() -> None:
    import numpy as np

    from benchmarks.store_recall import lists_read, shares

    centroids = np.eye(4, dtype=np.float32)
    query = np.array([0.1, 0.9, 0.0, 0.4], dtype=np.float32)
    assert lists_read(centroids, query, 2).tolist() == [1, 3]
    assert lists_read(centroids, query, 4).tolist() == [1, 3, 0, 2]
    assert shares([3, 0], [4, 0]) == [0.75, None]
    assert shares([1, 2], [3, 2]) == [0.3333, 1.0]


def test_retrain_open_splits_the_searches_by_whether_the_retrain_ran() -> None:
    from benchmarks.retrain_open import split_by_phase

    during, after = split_by_phase([(40.0, True), (55.0, True), (30.0, False), (35.0, False)])
    assert (during, after) == ([40.0, 55.0], [30.0, 35.0])
    assert split_by_phase([]) == ([], [])


def test_write_memory_groups_the_turns_of_a_step_into_conversations() -> None:
    from benchmarks.write_memory import conversations

    turns = [f"t{n}" for n in range(50)]
    got = conversations(turns, 45, 90)
    assert [len(c) for c in got] == [40, 40, 10]
    assert got[0][:6] == ["t45", "t46", "t47", "t48", "t49", "t0"]  # wraps around
    assert conversations(turns, 0, 0) == []


def test_file_backed_memory_is_the_resident_memory_less_the_anonymous(tmp_path: Path) -> None:
    from benchmarks._footprint import anon_rss_mb, file_rss_mb, rss_mb

    status = tmp_path / "status"
    status.write_text("VmRSS:\t  3072 kB\nRssAnon:\t  1024 kB\n", encoding="ascii")
    assert (rss_mb(status), anon_rss_mb(status), file_rss_mb(status)) == (3.0, 1.0, 2.0)
    assert file_rss_mb(tmp_path / "absent") is None  # not Linux: absent, not invented
