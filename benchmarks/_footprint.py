"""What a benchmark process and its store occupy: peak resident memory, bytes on disk.

Why a module: the latency, restart and crash benchmarks report the same two figures
for the scale table, read the same way.
"""

from pathlib import Path

__all__ = ["anon_rss_mb", "dir_bytes", "file_rss_mb", "peak_rss_mb", "rss_mb"]

_STATUS = Path("/proc/self/status")


def _status_mb(field: str, status: Path) -> float | None:
    try:
        text = status.read_text(encoding="ascii")
    except OSError:  # not Linux: the figure is absent, not invented
        return None
    for line in text.splitlines():
        if line.startswith(f"{field}:"):
            return round(int(line.split()[1]) / 1024, 1)
    return None


def peak_rss_mb(status: Path = _STATUS) -> float | None:
    """This process's peak resident memory (``VmHWM``; ``ru_maxrss`` keeps the parent's
    across ``exec``, so a benchmark's subprocess would report its parent's peak)."""
    return _status_mb("VmHWM", status)


def rss_mb(status: Path = _STATUS) -> float | None:
    """This process's resident memory now (``VmRSS``)."""
    return _status_mb("VmRSS", status)


def anon_rss_mb(status: Path = _STATUS) -> float | None:
    """Resident memory that only this process holds (``RssAnon``): what ``VmRSS`` counts
    less the pages of mapped files (a snapshot read through), which the kernel may drop."""
    return _status_mb("RssAnon", status)


def file_rss_mb(status: Path = _STATUS) -> float | None:
    """Resident memory of mapped files and shared pages (``VmRSS`` less ``RssAnon``)."""
    total, anon = rss_mb(status), anon_rss_mb(status)
    return None if total is None or anon is None else round(total - anon, 1)


def dir_bytes(path: Path) -> int:
    """Bytes of the regular files under ``path`` (0 when it does not exist)."""
    if not path.exists():
        return 0
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())
