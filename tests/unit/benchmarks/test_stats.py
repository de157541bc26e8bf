"""The benchmark's record of which code it measured."""

from benchmarks._stats import changed_paths


def test_changed_paths_keep_every_letter_of_every_path() -> None:
    status = " M adapters/a.py\0M  domain/b.py\0?? new file.py\0R  moved.py\0old.py\0 D gone.py\0"
    assert changed_paths(status) == [
        "adapters/a.py",  # a leading space in the status letters once cost this "a"
        "domain/b.py",
        "new file.py",
        "moved.py",
        "gone.py",
    ]
    assert changed_paths("") == []

