"""TESSERA_ANN_MIN_ROWS: the in-process graph's threshold, ``off``, or the default."""

from pathlib import Path

import pytest

from adapters.inmemory.memory_store import InMemoryMemoryStore
from adapters.inprocess.ann import AnnPolicy
from adapters.inprocess.index import InProcessIndex
from entrypoints.container import make_index
from entrypoints.settings import IndexKind, SettingsError, load_settings


def _policy(env: dict[str, str], tmp_path: Path) -> AnnPolicy | None:
    settings = load_settings({"TESSERA_DATA_DIR": str(tmp_path), **env})
    ann = "off" if settings.ann_off else settings.ann_min_rows
    index = make_index(IndexKind.INPROCESS, InMemoryMemoryStore(), ann)
    assert isinstance(index, InProcessIndex)
    return index._ann_policy


def test_the_default_policy_applies_unless_set(tmp_path: Path) -> None:
    assert _policy({}, tmp_path) == AnnPolicy()


def test_a_row_count_sets_the_threshold(tmp_path: Path) -> None:
    policy = _policy({"TESSERA_ANN_MIN_ROWS": "1000"}, tmp_path)
    assert policy is not None and policy.min_rows == 1000


def test_off_keeps_the_exact_scan(tmp_path: Path) -> None:
    assert _policy({"TESSERA_ANN_MIN_ROWS": "Off"}, tmp_path) is None


def test_anything_else_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="TESSERA_ANN_MIN_ROWS"):
        load_settings({"TESSERA_DATA_DIR": str(tmp_path), "TESSERA_ANN_MIN_ROWS": "-5"})
