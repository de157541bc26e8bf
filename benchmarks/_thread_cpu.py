"""CPU time by thread around a benchmark phase, read from ``/proc`` (Linux).

Why per thread: a process's CPU time says how much, not where. Read per
thread, it showed a thread the code never started (OpenBLAS's pool) spending
as much CPU a search as the event loop's own (docs/scaling.md#numpys-blas-threads).
Threads are labelled by their Python name where Python started them, else by
the name the kernel holds (``tokio-rt-worker``, or ``python`` for a library's
own threads, labelled ``other`` here).
"""

import os
import threading
from pathlib import Path

__all__ = ["ThreadTimes", "per_operation_ms", "thread_times"]

#: thread id -> (label, CPU seconds)
ThreadTimes = dict[int, tuple[str, float]]

_TASKS = Path("/proc/self/task")


def _label(tid: int, kernel_name: str, python_names: dict[int, str]) -> str:
    if tid == os.getpid():
        return "event loop (main thread)"
    named = python_names.get(tid)
    if named is not None:
        return named.rstrip("0123456789").rstrip("_-") or named
    return "other" if kernel_name == "python" else kernel_name


def thread_times() -> ThreadTimes:
    """Each live thread's label and CPU seconds so far (empty where ``/proc`` is not)."""
    if not _TASKS.is_dir():
        return {}
    tick = os.sysconf("SC_CLK_TCK")
    python_names = {t.native_id: t.name for t in threading.enumerate() if t.native_id}
    out: ThreadTimes = {}
    for entry in _TASKS.iterdir():
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # the thread ended meanwhile
            continue
        kernel_name = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2 :].split()
        tid = int(entry.name)
        # utime and stime, the 14th and 15th fields of stat (the 12th and 13th after comm)
        seconds = (int(fields[11]) + int(fields[12])) / tick
        out[tid] = (_label(tid, kernel_name, python_names), seconds)
    return out


def per_operation_ms(before: ThreadTimes, after: ThreadTimes, operations: int) -> dict[str, float]:
    """CPU ms an operation by thread label, over the threads alive at ``after`` (a thread
    started in between counts from zero), largest first; labels under 0.05 ms left out."""
    if operations < 1:
        return {}
    spent: dict[str, float] = {}
    for tid, (label, seconds) in after.items():
        earlier = before.get(tid)
        spent[label] = spent.get(label, 0.0) + seconds - (earlier[1] if earlier else 0.0)
    ordered = sorted(spent.items(), key=lambda item: -item[1])
    per = {label: round(s * 1000 / operations, 2) for label, s in ordered}
    return {label: ms for label, ms in per.items() if ms >= 0.05}
