"""benchmarks.gc_pauses times the collections of the oldest generation only."""

import gc

from benchmarks.gc_pauses import _Collections


def test_only_full_collections_are_timed() -> None:
    seen = _Collections()
    gc.callbacks.append(seen)
    try:
        gc.collect(0)
        gc.collect(1)
        assert seen.full_ms == []
        gc.collect()
    finally:
        gc.callbacks.remove(seen)
    assert len(seen.full_ms) == 1 and seen.full_ms[0] >= 0
