"""Both stores against the re-embed staging contract, on every engine."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from adapters.inmemory.memory_store import InMemoryMemoryStore
from adapters.surreal.memory_store import SurrealMemoryStore
from application.ports import MemoryStore
from contracts.vector_staging import VectorStagingContract


class TestInMemoryVectorStaging(VectorStagingContract):
    @pytest.fixture
    async def store(self) -> AsyncIterator[MemoryStore]:
        store = InMemoryMemoryStore()
        yield store
        await store.close()


@pytest.mark.slow
class TestSurrealVectorStagingInMemory(VectorStagingContract):
    @pytest.fixture
    async def store(self) -> AsyncIterator[MemoryStore]:
        store = SurrealMemoryStore("mem://")
        yield store
        await store.close()


@pytest.mark.slow
class TestSurrealVectorStagingNative(VectorStagingContract):
    """With SurrealDB's own HNSW index kept: the switch redefines it for the new width."""

    @pytest.fixture
    async def store(self, tmp_path: Path) -> AsyncIterator[MemoryStore]:
        store = SurrealMemoryStore(f"surrealkv://{tmp_path / 'data'}", native_search=True)
        yield store
        await store.close()


@pytest.mark.slow
class TestSurrealVectorStagingSurrealKv(VectorStagingContract):
    @pytest.fixture
    async def store(self, tmp_path: Path) -> AsyncIterator[MemoryStore]:
        store = SurrealMemoryStore(f"surrealkv://{tmp_path / 'data'}", native_search=False)
        yield store
        await store.close()
