"""The soak's growth figures (benchmarks/_soak.py): a slope per hour after the warm-up."""

import json
from pathlib import Path

import pytest

from benchmarks._soak import growth_per_hour, soak_report


def test_a_steady_climb_is_its_rate_per_hour() -> None:
    points = [(t, 100.0 + t / 60) for t in range(0, 600, 10)]  # +1 per minute
    assert growth_per_hour(points) == pytest.approx(60.0)


def test_too_few_points_or_no_time_give_no_slope() -> None:
    assert growth_per_hour([(0.0, 1.0), (10.0, 2.0)]) is None
    assert growth_per_hour([(5.0, 1.0), (5.0, 2.0), (5.0, 3.0)]) is None


def test_the_warm_up_is_left_out(tmp_path: Path) -> None:
    samples = tmp_path / "samples.jsonl"
    lines = []
    for t in range(0, 300, 10):
        rss = 100.0 + t if t < 60 else 160.0  # climbs while warming up, then flat
        lines.append({"t": t, "rss_mib": rss, "py_blocks": 5, "py_objects": 7, "data_mb": t})
    samples.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    report = soak_report(samples, warmup=60)
    assert report["rss_mib_per_hour"] == pytest.approx(0.0)
    assert report["data_mb_per_hour"] == pytest.approx(3600.0)
    assert len(report["samples"]) == 30
