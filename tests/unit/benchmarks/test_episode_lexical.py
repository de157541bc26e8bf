"""The episode-lexical benchmark runs end to end on a small index and reports what it says."""

import argparse

import pytest

from benchmarks._data import data_path
from benchmarks.episode_lexical import run


def test_small_run_reports_every_episode_and_timings() -> None:
    if not data_path().exists():
        pytest.skip(f"LongMemEval data not at {data_path()} (../shared is beside a CI clone)")
    out = run(argparse.Namespace(rows=600, queries=5, episode=3, data=None))
    assert out["rows"] == 600 and out["episodes"] == 200 and out["queries"] == 5
    timings = out["group_scores_cpu_ms"]
    assert isinstance(timings, dict) and timings["n"] == 5
    matched = out["matched_groups"]
    assert isinstance(matched, dict) and 0 < matched["max_ms"] <= 200
