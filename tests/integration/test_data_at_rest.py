"""The store's directory is owner-only whoever opens it."""

import os
import stat
from pathlib import Path

import pytest

from adapters.surreal.memory_store import SurrealMemoryStore
from contracts.samples import SPACE, memory

pytestmark = pytest.mark.slow


async def test_the_embedded_store_directory_is_owner_only(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    os.chmod(data, 0o755)  # as an older install or a loose umask left it
    store = SurrealMemoryStore(f"surrealkv://{data}")
    try:
        await store.prepare("org-perm", SPACE)
        source, chunks = memory("s1", "org-perm", ["c1"])
        await store.save_memory(source, chunks)
    finally:
        await store.close()
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
