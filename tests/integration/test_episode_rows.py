"""Each episode's rows held as arrays (adapters.inprocess.episode_rows) answer as the
dict of lists they replaced did, through restores, additions and foldings."""

import gc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.inprocess.episode_rows import EpisodeRows

#: (episode code, turn order) per row
_ROWS = st.lists(st.tuples(st.integers(0, 6), st.integers(-1, 4)), max_size=60)


def _expected(rows: list[tuple[int, int]]) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for row, (code, _) in enumerate(rows):
        out.setdefault(code, []).append(row)
    return out


@settings(max_examples=200, deadline=None)
@given(restored=_ROWS, added=_ROWS, fold_at=st.integers(1, 8))
def test_rows_and_turn_order_match_a_dict_of_lists(
    restored: list[tuple[int, int]],
    added: list[tuple[int, int]],
    fold_at: int,
) -> None:
    members = EpisodeRows(
        np.array([c for c, _ in restored], dtype=np.int64),
        np.array([o for _, o in restored], dtype=np.int64),
        min_fold=fold_at,  # fold often, as a growing index does
    )
    for row, (code, order) in enumerate(added, start=len(restored)):
        members.add(code, order, row)
    every = restored + added
    expected = _expected(every)
    assert len(members) == len(every)
    for code in range(9):  # codes never seen answer no rows
        rows = expected.get(code, [])
        assert members.rows(code) == rows
        assert members.in_turn_order(code) == sorted(rows, key=lambda r: (every[r][1], r))
    assert members.orders(len(every)).tolist() == [o for _, o in every]


def test_rows_must_be_added_in_order() -> None:
    members = EpisodeRows()
    members.add(0, 1, 0)
    with pytest.raises(ValueError, match="row 2 added where row 1 was next"):
        members.add(0, 2, 2)


def test_a_restore_needs_an_order_for_every_row() -> None:
    with pytest.raises(ValueError, match="an order is wanted for every row"):
        EpisodeRows(np.zeros(3, dtype=np.int64), np.zeros(2, dtype=np.int64))


def test_a_restored_index_of_many_episodes_leaves_the_collector_little_to_walk() -> None:
    # why the arrays: a dict of lists held one tracked list per episode, walked by every
    # full collection (~220 ms at 100k rows inside a search, benchmarks/RESULTS.md)
    before = len(gc.get_objects())
    codes = np.arange(50_000, dtype=np.int64).repeat(2)
    members = EpisodeRows(codes, np.zeros(len(codes), dtype=np.int64))
    for row in range(len(codes), len(codes) + 100):
        members.add(row % 7, 0, row)
    assert len(gc.get_objects()) - before < 50
    assert members.rows(49_999) == [99_998, 99_999]
