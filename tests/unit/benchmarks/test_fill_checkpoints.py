"""The checkpointed fill refuses what it cannot do and names its copies beside the store."""

from pathlib import Path

import pytest

from benchmarks.fill_checkpoints import _parse, copy_name


def test_copies_are_named_beside_the_store() -> None:
    assert copy_name(Path("/s/fill"), 300_000) == Path("/s/fill-300k")


def test_checkpoints_must_be_multiples_of_the_smallest(tmp_path: Path) -> None:
    ok = _parse(["--data-dir", str(tmp_path / "new"), "--chunks", "9", "--checkpoint", "3", "6"])
    assert ok.checkpoint == [3, 6]
    with pytest.raises(SystemExit):
        _parse(["--data-dir", str(tmp_path / "new"), "--chunks", "9", "--checkpoint", "3", "5"])
    with pytest.raises(SystemExit):
        _parse(["--data-dir", str(tmp_path / "new"), "--chunks", "9", "--checkpoint", "0"])


def test_an_existing_store_is_not_written_over(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        _parse(["--data-dir", str(tmp_path), "--chunks", "9"])
