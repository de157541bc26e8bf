"""Every MemoryStore adapter against the shared contract, plus SurrealDB-only promises.

The SurrealDB store runs on ``mem://`` and on ``surrealkv://`` (a fresh data
directory per test), the two embedded engines a deployment can pick.
"""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from adapters.inmemory.memory_store import InMemoryMemoryStore
from adapters.surreal.memory_store import SurrealMemoryStore
from application.ports import MemoryStore
from contracts.memory_store import MemoryStoreContract
from tests.support.surreal_server import server_store


class TestInMemoryMemoryStore(MemoryStoreContract):
    @pytest.fixture
    async def store(self) -> AsyncIterator[MemoryStore]:
        store = InMemoryMemoryStore()
        yield store
        await store.close()


@pytest.mark.slow
class TestSurrealMemoryStoreInMemory(MemoryStoreContract):
    @pytest.fixture
    async def store(self) -> AsyncIterator[MemoryStore]:
        store = SurrealMemoryStore("mem://")
        yield store
        await store.close()


@pytest.mark.slow
class TestSurrealMemoryStoreSurrealKv(MemoryStoreContract):
    @pytest.fixture
    async def store(self, tmp_path: Path) -> AsyncIterator[MemoryStore]:
        store = SurrealMemoryStore(f"surrealkv://{tmp_path / 'data'}")
        yield store
        await store.close()


@pytest.mark.slow
class TestSurrealMemoryStoreServer(MemoryStoreContract):
    """Over ws:// to a server (tests/support/surreal_server.py: skipped unless
    TESSERA_TEST_SURREAL_URL names one)."""

    @pytest.fixture
    async def store(self) -> AsyncIterator[MemoryStore]:
        store = await server_store()
        yield store
        await store.close()
