"""Memory over a long run (``benchmarks.load --soak``): samples in the served process, a slope.

Why in the served process: RSS alone cannot say what grows. Every ``--every``
seconds the server appends one line: RSS (after ``malloc_trim``, so memory the
C allocator merely keeps does not count), the interpreter's allocated blocks
and live objects (Python's side), and the data directory's size (rows written:
notes remembered and the audit receipt every read leaves). The growth per hour
is a least-squares slope over the samples after the warm-up.
"""

import asyncio
import gc
import json
import sys
import time
from pathlib import Path
from typing import Any

from adapters.surreal.compaction import directory_bytes, release_freed_memory
from benchmarks._residue import rss_mib

__all__ = ["growth_per_hour", "print_growth", "sample_forever", "soak_report"]


async def sample_forever(path: Path, data: Path, every: float) -> None:
    """Append one JSON line per ``every`` seconds until cancelled."""
    began = time.monotonic()
    while True:
        release_freed_memory()
        line = {
            "t": round(time.monotonic() - began, 1),
            "rss_mib": round(rss_mib(), 1),
            "py_blocks": sys.getallocatedblocks(),
            "py_objects": len(gc.get_objects()),
            "data_mb": round(directory_bytes(data) / 1e6, 2),
        }
        with path.open("a") as handle:
            handle.write(json.dumps(line) + "\n")
        await asyncio.sleep(every)


def growth_per_hour(points: list[tuple[float, float]]) -> float | None:
    """Least-squares slope of (seconds, value), per hour; None with fewer than 3 points."""
    if len(points) < 3:
        return None
    n = len(points)
    mean_t = sum(t for t, _ in points) / n
    mean_v = sum(v for _, v in points) / n
    var = sum((t - mean_t) ** 2 for t, _ in points)
    if var == 0:
        return None
    cov = sum((t - mean_t) * (v - mean_v) for t, v in points)
    return round(cov / var * 3600, 2)


def soak_report(path: Path, warmup: float) -> dict[str, Any]:
    """The samples, and each measure's growth per hour after ``warmup`` seconds."""
    samples = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    after = [s for s in samples if s["t"] >= warmup]
    report: dict[str, Any] = {"samples": samples, "warmup_s": warmup}
    for key in ("rss_mib", "py_blocks", "py_objects", "data_mb"):
        report[f"{key}_per_hour"] = growth_per_hour([(s["t"], float(s[key])) for s in after])
    return report


def print_growth(report: dict[str, Any]) -> None:
    print(
        f"    per hour after {report.get('warmup_s', 0):.0f} s: RSS "
        f"{report.get('rss_mib_per_hour')} MiB, Python blocks {report.get('py_blocks_per_hour')}, "
        f"objects {report.get('py_objects_per_hour')}, data {report.get('data_mb_per_hour')} MB",
        flush=True,
    )
