"""A started server's objects are frozen out of the collector's full walks."""

import gc
import weakref
from collections.abc import Iterator

import pytest

from entrypoints.startup_heap import freeze_startup_objects


@pytest.fixture
def unfrozen() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()  # the rest of the suite collects as before


class _Node:
    def __init__(self) -> None:
        self.me = self  # a reference cycle: only the collector frees it


def test_startup_objects_leave_the_walks_and_the_starts_garbage_goes_first(
    unfrozen: None,
) -> None:
    held = [[n] for n in range(10_000)]  # the service's long-lived containers
    start_garbage = weakref.ref(_Node())  # a cycle no one holds: collected, not frozen
    frozen = freeze_startup_objects()
    assert frozen == gc.get_freeze_count() >= len(held)
    tracked = len(gc.get_objects())
    assert tracked < frozen  # the walk no longer holds what was alive at the start
    assert start_garbage() is None
