"""Spreading ranked turns over episodes and runs: the caps, their defaults and bounds."""

import pytest

from domain.ranking.spread import spread_over_episodes, spread_over_runs

Turn = tuple[str, int | None]


def _episode(t: Turn) -> str:
    return t[0]


def _position(t: Turn) -> int | None:
    return t[1]


def test_two_turns_per_episode_come_first_by_default() -> None:
    ranked = [("e1", 1), ("e1", 2), ("e1", 3), ("e2", 1)]
    assert spread_over_episodes(ranked, _episode) == [("e1", 1), ("e1", 2), ("e2", 1), ("e1", 3)]
    assert spread_over_episodes(ranked, _episode, per_episode=1) == [
        ("e1", 1),
        ("e2", 1),
        ("e1", 2),
        ("e1", 3),
    ]
    with pytest.raises(ValueError, match=r"^per_episode must be >= 1$"):
        spread_over_episodes(ranked, _episode, per_episode=0)


def test_runs_default_to_two_runs_of_two_turns() -> None:
    ranked: list[Turn] = [("e1", 1), ("e1", 2), ("e1", 3), ("e1", 7), ("e1", 9), ("e2", 1)]
    assert spread_over_runs(ranked, _episode, _position) == [
        ("e1", 1),
        ("e1", 2),
        ("e1", 3),
        ("e2", 1),
        ("e1", 7),
        ("e1", 9),
    ]
    single = spread_over_runs(ranked, _episode, _position, per_episode=1, max_run=1)
    assert single == [("e1", 1), ("e2", 1), ("e1", 2), ("e1", 3), ("e1", 7), ("e1", 9)]


def test_a_turn_joins_the_run_of_the_turn_before_or_after_it() -> None:
    ranked: list[Turn] = [("e1", 5), ("e1", 4), ("e2", 1)]
    assert spread_over_runs(ranked, _episode, _position, per_episode=1) == ranked
    ranked = [("e1", 5), ("e1", 6), ("e2", 1)]
    assert spread_over_runs(ranked, _episode, _position, per_episode=1) == ranked


def test_runs_never_cross_episodes_and_turns_without_a_place_count_alone() -> None:
    ranked: list[Turn] = [("e1", 4), ("e2", 5), ("e2", 9), ("e1", None), ("e1", None)]
    assert spread_over_runs(ranked, _episode, _position, per_episode=1) == [
        ("e1", 4),
        ("e2", 5),
        ("e2", 9),
        ("e1", None),
        ("e1", None),
    ]
    assert spread_over_runs(ranked, _episode, _position, per_episode=2)[:4] == [
        ("e1", 4),
        ("e2", 5),
        ("e2", 9),
        ("e1", None),
    ]


def test_run_caps_are_checked() -> None:
    with pytest.raises(ValueError, match=r"^per_episode must be >= 1$"):
        spread_over_runs([], _episode, _position, per_episode=0)
    with pytest.raises(ValueError, match=r"^max_run must be >= 1$"):
        spread_over_runs([], _episode, _position, max_run=0)
