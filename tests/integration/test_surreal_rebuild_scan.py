"""A rebuild's source scan on an on-disk engine gives the engine's read memory back.

The embedded engine keeps memory for every record read until it is reopened
(``SurrealConnection.release_read_memory``); the scan reopens it every
``RELEASE_SCANNED_EVERY`` chunks. What must hold across those reopens: every
chunk read once, and the store usable as before.
"""

from pathlib import Path

import pytest

from adapters.surreal import memory_reads
from adapters.surreal.memory_store import SurrealMemoryStore
from contracts.samples import SPACE, memory

pytestmark = pytest.mark.slow

ORG = "org-scan"


async def _filled(url: str) -> SurrealMemoryStore:
    store = SurrealMemoryStore(url, native_search=False)
    await store.prepare(ORG, SPACE)
    for n in range(6):
        await store.save_memory(*memory(f"s{n}", ORG, [f"c{n}a", f"c{n}b", f"c{n}c"]))
    return store


async def _scan_all(store: SurrealMemoryStore) -> list[str]:
    read, after = [], None
    while page := await store.scan_index_sources(ORG, after, 4):
        read += [e.chunk_id for e in page]
        after = page[-1].source_id
    return read


async def test_the_scan_reopens_the_engine_and_reads_every_chunk_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(memory_reads, "RELEASE_SCANNED_EVERY", 5)
    store = await _filled(f"surrealkv://{tmp_path / 'data'}")
    try:
        before = store.connection.checkpoints
        read = await _scan_all(store)
        assert read == [f"c{n}{k}" for n in range(6) for k in "abc"]
        # 18 chunks in pages of 6: a reopen after each page that brought the count to 5+
        assert store.connection.checkpoints - before == 3
        assert set(await store.get_chunks(ORG, ["c0a", "c5c"])) == {"c0a", "c5c"}
    finally:
        await store.close()


async def test_an_engine_in_memory_is_never_reopened(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memory_reads, "RELEASE_SCANNED_EVERY", 1)
    store = await _filled("mem://")
    try:
        assert len(await _scan_all(store)) == 18  # a reopen would have lost every row
        assert store.connection.checkpoints == 0
    finally:
        await store.close()
