"""TESSERA_BLAS_THREADS: numpy's BLAS on one thread unless told otherwise, set as the
composition root makes the index."""

from collections.abc import Iterator
from pathlib import Path

import numpy  # noqa: F401  (the BLAS library whose threads are counted)
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from adapters.inmemory.memory_store import InMemoryMemoryStore
from entrypoints.container import make_index
from entrypoints.settings import IndexKind, SettingsError, load_settings


def _blas_threads() -> set[int]:
    return {int(lib["num_threads"]) for lib in threadpool_info() if lib["user_api"] == "blas"}


@pytest.fixture
def two_threads() -> Iterator[None]:
    """BLAS on two threads before the test, and as it was after it (the limit is the
    whole process's)."""
    if not _blas_threads():
        pytest.skip("numpy's BLAS is not one threadpoolctl can see")
    limits = threadpool_limits(limits=2, user_api="blas")
    try:
        if _blas_threads() != {2}:
            pytest.skip("this machine's BLAS cannot run on two threads")
        yield
    finally:
        limits.restore_original_limits()  # each library's own count, as before


def _index_with(env: dict[str, str], tmp_path: Path) -> None:
    settings = load_settings({"TESSERA_DATA_DIR": str(tmp_path), **env})
    make_index(IndexKind.INPROCESS, InMemoryMemoryStore(), blas_threads=settings.blas_threads)


@pytest.mark.usefixtures("two_threads")
def test_one_thread_unless_set(tmp_path: Path) -> None:
    _index_with({}, tmp_path)
    assert _blas_threads() == {1}


@pytest.mark.usefixtures("two_threads")
def test_a_count_sets_the_threads(tmp_path: Path) -> None:
    threadpool_limits(limits=1, user_api="blas")
    _index_with({"TESSERA_BLAS_THREADS": "2"}, tmp_path)
    assert _blas_threads() == {2}


@pytest.mark.usefixtures("two_threads")
def test_auto_leaves_the_library_as_it_is(tmp_path: Path) -> None:
    _index_with({"TESSERA_BLAS_THREADS": "auto"}, tmp_path)
    assert _blas_threads() == {2}


@pytest.mark.parametrize("raw", ["0", "-1", "two", "1.5"])
def test_anything_else_is_refused(raw: str, tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="TESSERA_BLAS_THREADS"):
        load_settings({"TESSERA_DATA_DIR": str(tmp_path), "TESSERA_BLAS_THREADS": raw})
