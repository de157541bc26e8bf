"""RetrievalIndex adapters against the shared contract.

The in-process index has its own module beside this one; here is the native
SurrealDB index, which reads the store's own BM25 and HNSW indexes.
"""

from collections.abc import AsyncIterator
from typing import ClassVar

import pytest

from adapters.surreal.memory_store import SurrealMemoryStore
from adapters.surreal.native_index import SurrealNativeIndex
from application.ports import MemoryStore, RetrievalIndex
from contracts.retrieval_index import RetrievalIndexContract


@pytest.mark.slow
class TestSurrealNativeIndex(RetrievalIndexContract):
    native: ClassVar[bool] = True

    @pytest.fixture
    async def pair(self) -> AsyncIterator[tuple[MemoryStore, RetrievalIndex]]:
        store = SurrealMemoryStore("mem://")
        yield store, SurrealNativeIndex(store)
        await store.close()
