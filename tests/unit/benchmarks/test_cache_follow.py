"""The cache-follow benchmark runs end to end on a small index and reports both arms."""

import argparse

import pytest

from benchmarks._data import data_path
from benchmarks.cache_follow import run


def test_small_run_reports_write_and_search_cpu_of_both_arms() -> None:
    if not data_path().exists():
        pytest.skip(f"LongMemEval data not at {data_path()} (../shared is beside a CI clone)")
    out = run(argparse.Namespace(rows=900, writes=12, data=None, seed=1))
    assert out["rows"] == 900 and out["writes"] == 12
    cpu = out["cpu_ms"]
    assert isinstance(cpu, dict) and set(cpu) == {"follow", "drop"}
    for arm in cpu.values():
        assert arm["write"]["n"] == 6 and arm["search"]["n"] == 6
