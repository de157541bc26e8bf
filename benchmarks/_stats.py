"""Latency summaries and a description of the machine that produced them."""

import os
import platform
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "changed_paths",
    "code_version",
    "machine_info",
    "progress",
    "report_head",
    "summarize",
]


def summarize(samples_ms: list[float]) -> dict[str, float]:
    """p50/p95/p99/mean/max in milliseconds (linear interpolation), rounded to 0.01 ms."""
    if not samples_ms:
        return {"n": 0}
    arr = np.asarray(samples_ms, dtype=np.float64)
    p50, p95, p99 = np.percentile(arr, [50, 95, 99])
    return {
        "n": len(samples_ms),
        "p50_ms": round(float(p50), 2),
        "p95_ms": round(float(p95), 2),
        "p99_ms": round(float(p99), 2),
        "mean_ms": round(float(arr.mean()), 2),
        "max_ms": round(float(arr.max()), 2),
    }


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _ram_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024 / 1024, 1)
    except (OSError, ValueError, IndexError):
        pass
    return None


def machine_info() -> dict[str, object]:
    return {
        "cpu_count": os.cpu_count(),
        "cpu_model": _cpu_model(),
        "ram_gib": _ram_gib(),
        "platform": platform.platform(),
        "python": platform.python_version(),
    }


def code_version() -> dict[str, object]:
    """The commit measured and whether the working tree differed from it."""
    root = Path(__file__).resolve().parent.parent

    def git(*args: str) -> str:
        done = subprocess.run(  # noqa: S603 - fixed arguments
            ["git", *args],  # noqa: S607 - git from PATH, as a developer runs it
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
        )
        return done.stdout

    changed = changed_paths(git("status", "--porcelain=v1", "-z"))
    return {
        "commit": git("rev-parse", "--short", "HEAD").strip() or None,
        "uncommitted_product_files": sorted(p for p in changed if not p.startswith("benchmarks/")),
    }


def changed_paths(porcelain_z: str) -> list[str]:
    """The paths ``git status --porcelain=v1 -z`` lists, as they are now.

    Each entry is two status letters, a space and the path, NUL-terminated (a
    rename's entry is followed by its old path, which is skipped). The status
    letters may start with a space, so the output must not be stripped: that
    once cut the first letter off the first path."""
    entries = porcelain_z.split("\0")
    paths: list[str] = []
    at = 0
    while at < len(entries):
        entry = entries[at]
        at += 1
        if len(entry) < 4:
            continue
        paths.append(entry[3:])
        if entry[0] in "RC":
            at += 1  # the old path of a rename or copy
    return paths


def progress(message: str) -> None:
    """A progress line on stderr, so stdout keeps only a benchmark's figures."""
    print(message, file=sys.stderr, flush=True)


def report_head(benchmark: str, loads: Sequence[float], **facts: object) -> dict[str, Any]:
    """What a benchmark run in turns reports first: its name, ``facts`` of the run, the
    code, the machine, and the range of the one-minute load average before its runs."""
    return {
        "benchmark": benchmark,
        **facts,
        "code": code_version(),
        "machine": machine_info(),
        "load_average_1m": [round(min(loads), 2), round(max(loads), 2)],
    }
