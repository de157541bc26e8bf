"""Every ImportStore adapter against the shared contract."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from adapters.inmemory.import_store import InMemoryImportStore
from adapters.surreal.import_store import SurrealImportStore
from adapters.surreal.memory_store import SurrealMemoryStore
from application.imports.import_ports import ImportStore
from contracts.import_store import ImportStoreContract
from tests.support.surreal_server import server_store


class TestInMemoryImportStore(ImportStoreContract):
    @pytest.fixture
    async def import_store(self) -> AsyncIterator[ImportStore]:
        store = InMemoryImportStore()
        yield store
        await store.close()


@pytest.mark.slow
class TestSurrealImportStoreInMemory(ImportStoreContract):
    @pytest.fixture
    async def import_store(self) -> AsyncIterator[ImportStore]:
        memory = SurrealMemoryStore("mem://")
        yield SurrealImportStore(memory.connection)
        await memory.close()


@pytest.mark.slow
class TestSurrealImportStoreSurrealKv(ImportStoreContract):
    @pytest.fixture
    async def import_store(self, tmp_path: Path) -> AsyncIterator[ImportStore]:
        memory = SurrealMemoryStore(f"surrealkv://{tmp_path / 'data'}")
        yield SurrealImportStore(memory.connection)
        await memory.close()


@pytest.mark.slow
class TestSurrealImportStoreServer(ImportStoreContract):
    """Skipped unless TESSERA_TEST_SURREAL_URL names a server (tests/support/surreal_server.py)."""

    @pytest.fixture
    async def import_store(self) -> AsyncIterator[ImportStore]:
        memory = await server_store()
        yield SurrealImportStore(memory.connection)
        await memory.close()
