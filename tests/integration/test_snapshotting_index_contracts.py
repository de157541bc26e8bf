"""The in-process index's snapshots against the SnapshottingIndex contract."""

from collections.abc import Callable
from pathlib import Path

import pytest

from adapters.inprocess.persistent import PersistentInProcessIndex
from application.indexing.snapshots import SnapshottingIndex
from contracts.snapshotting_index import SnapshottingIndexContract


class TestPersistentInProcessIndex(SnapshottingIndexContract):
    @pytest.fixture
    def make_index(self, tmp_path: Path) -> Callable[[], SnapshottingIndex]:
        return lambda: PersistentInProcessIndex(tmp_path / "snapshots")
