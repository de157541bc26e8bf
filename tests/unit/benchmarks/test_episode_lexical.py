"""The lexical-legs benchmark runs end to end on a small index and reports what it says."""

import argparse

import pytest

from benchmarks._data import data_path
from benchmarks.episode_lexical import run


@pytest.mark.parametrize(("hide", "stale"), [(0.0, 0.0), (0.5, 0.0), (0.0, 0.3)])
def test_small_run_reports_both_legs_and_agreeing_lists(hide: float, stale: float) -> None:
    if not data_path().exists():
        pytest.skip(f"LongMemEval data not at {data_path()} (../shared is beside a CI clone)")
    args = argparse.Namespace(
        rows=600, queries=5, episode=3, turn_k=10, episode_k=5, hide=hide, stale=stale, data=None
    )
    out = run(args)
    assert out["rows"] == 600 and out["episodes"] == 200 and out["queries"] == 5
    assert out["plan_declined"] is (hide > 0.05)  # past 5 % partly admitted rows
    cpu = out["cpu_ms"]
    assert isinstance(cpu, dict) and set(cpu) == {"as_sent", "whole"}
    for times in cpu.values():
        assert set(times) == {"turn_before", "turn_after", "episode_before", "episode_after"}
        assert all(t["n"] == 5 for t in times.values())
    assert out["mismatched_lists"] == {"turn": 0, "episode": 0}
    build = out["episode_postings_build"]
    assert isinstance(build, dict) and 0 < build["postings"] <= build["row_postings"]
