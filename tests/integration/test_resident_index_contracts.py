"""The in-process indexes against the residency and eviction contracts."""

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from adapters.inprocess.index import InProcessIndex
from adapters.inprocess.persistent import PersistentInProcessIndex
from contracts.resident_index import EvictableIndexContract, ResidentIndexContract


class TestInProcessIndexResidency(ResidentIndexContract):
    @pytest.fixture
    def make_index(self) -> Callable[[], Any]:
        return InProcessIndex


class TestPersistentInProcessIndexEviction(EvictableIndexContract):
    @pytest.fixture
    def make_index(self, tmp_path: Path) -> Callable[[], Any]:
        return lambda: PersistentInProcessIndex(tmp_path / "snapshots", idle_after=60.0)
