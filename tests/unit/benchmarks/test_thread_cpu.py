"""CPU time by thread: the difference per operation, and reading it from /proc."""

import sys
import threading
import time

import pytest

from benchmarks._thread_cpu import per_operation_ms, thread_times


def test_each_label_gets_what_its_threads_spent_per_operation() -> None:
    before = {1: ("event loop (main thread)", 1.0), 2: ("asyncio", 0.5)}
    after = {
        1: ("event loop (main thread)", 1.2),
        2: ("asyncio", 0.6),
        3: ("asyncio", 0.1),  # started in between: counted from zero
        4: ("other", 0.00001),  # under 0.05 ms an operation: left out
    }
    assert per_operation_ms(before, after, 10) == {
        "event loop (main thread)": 20.0,
        "asyncio": 20.0,
    }


def test_no_operations_no_figures() -> None:
    assert per_operation_ms({}, {1: ("x", 1.0)}, 0) == {}


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc is Linux's")
def test_a_busy_named_thread_is_read_under_its_name() -> None:
    spun, stop = threading.Event(), threading.Event()

    def spin_then_wait() -> None:
        end = time.process_time() + 0.2
        while time.process_time() < end:
            pass
        spun.set()
        stop.wait(5)  # alive while read: an ended thread has left /proc

    worker = threading.Thread(target=spin_then_wait, name="spinner_1")
    start = thread_times()
    worker.start()
    spun.wait(5)
    try:
        after = thread_times()
    finally:
        stop.set()
        worker.join()
    figures = per_operation_ms(start, after, 1)
    assert figures.get("spinner", 0.0) > 50.0
    assert "event loop (main thread)" in {label for label, _ in after.values()}


def test_the_search_phase_reads_threads_around_the_timed_searches_only(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The settle after the warm-ups lets background builds land: their CPU is not a
    search's, so the per-thread window opens after it."""
    import asyncio
    from types import SimpleNamespace

    import benchmarks._phases as phases

    clock = {"cpu": 0.0}

    async def settle(_seconds: float) -> None:
        clock["cpu"] += 5.0  # a background build during the settle

    async def search(_request: object, _context: object) -> SimpleNamespace:
        clock["cpu"] += 0.01
        return SimpleNamespace(results=[])

    async def authorized(_services: object, _key: str) -> None:
        return None

    monkeypatch.setattr(phases, "thread_times", lambda: {1: ("worker", clock["cpu"])})
    monkeypatch.setattr(phases, "authorized", authorized)
    monkeypatch.setattr(asyncio, "sleep", settle)
    services = SimpleNamespace(memory=SimpleNamespace(search=search))
    run = asyncio.run(
        phases.search_phase(services, "key", "org", ["a", "b"], ["warm"], settle_s=1.0)  # type: ignore[arg-type]
    )
    assert per_operation_ms(run.threads_before, run.threads_after, 2) == {"worker": 10.0}
