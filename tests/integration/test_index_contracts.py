"""RetrievalIndex adapters against the shared contract.

Both backends pass the same suite: the in-process accelerator (derived from
the store) and the native SurrealDB index (the store's own BM25 and HNSW).
"""

from collections.abc import AsyncIterator
from typing import ClassVar

import pytest

from adapters.inmemory.memory_store import InMemoryMemoryStore
from adapters.inprocess.index import InProcessIndex
from adapters.surreal.memory_store import SurrealMemoryStore
from adapters.surreal.native_index import SurrealNativeIndex
from application.ports import MemoryStore, RetrievalIndex
from contracts.retrieval_index import RetrievalIndexContract
from tests.support.surreal_server import server_store


@pytest.mark.slow
class TestSurrealNativeIndex(RetrievalIndexContract):
    native: ClassVar[bool] = True

    @pytest.fixture
    async def pair(self) -> AsyncIterator[tuple[MemoryStore, RetrievalIndex]]:
        store = SurrealMemoryStore("mem://")
        yield store, SurrealNativeIndex(store)
        await store.close()


class TestInProcessIndexOnSurreal(RetrievalIndexContract):
    @pytest.fixture
    async def pair(self) -> AsyncIterator[tuple[MemoryStore, RetrievalIndex]]:
        store = SurrealMemoryStore("mem://")
        yield store, InProcessIndex()
        await store.close()


class TestInProcessIndexOnInMemory(RetrievalIndexContract):
    @pytest.fixture
    async def pair(self) -> AsyncIterator[tuple[MemoryStore, RetrievalIndex]]:
        store = InMemoryMemoryStore()
        yield store, InProcessIndex()
        await store.close()


@pytest.mark.slow
class TestSurrealNativeIndexServer(RetrievalIndexContract):
    """The server builds its own HNSW (unlike the embedded engine); skipped unless
    TESSERA_TEST_SURREAL_URL names a server (tests/support/surreal_server.py)."""

    native: ClassVar[bool] = True

    @pytest.fixture
    async def pair(self) -> AsyncIterator[tuple[MemoryStore, RetrievalIndex]]:
        store = await server_store()
        yield store, SurrealNativeIndex(store)
        await store.close()


@pytest.mark.slow
class TestInProcessIndexOnSurrealServer(RetrievalIndexContract):
    @pytest.fixture
    async def pair(self) -> AsyncIterator[tuple[MemoryStore, RetrievalIndex]]:
        store = await server_store(native_search=False)
        yield store, InProcessIndex()
        await store.close()
