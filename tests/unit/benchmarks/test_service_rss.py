import os
import time

from benchmarks.service_rss import Sampler, status_mb


def test_status_reads_this_process_and_nothing_for_a_missing_one() -> None:
    mine = status_mb(os.getpid())
    assert mine["VmRSS"] > 0 and mine["VmHWM"] >= mine["VmRSS"]
    assert "RssAnon" in mine
    assert status_mb(2**22 + 12345) == {}


def test_the_sampler_keeps_the_largest_figures() -> None:
    sampler = Sampler(os.getpid(), every=0.01)
    sampler.start()
    held = bytearray(64 << 20)  # 64 MiB resident while sampled
    held[::4096] = b"x" * len(held[::4096])
    time.sleep(0.1)
    sampler.stop()
    del held
    assert sampler.peaks["VmRSS"] >= 64
    assert not sampler.is_alive()
