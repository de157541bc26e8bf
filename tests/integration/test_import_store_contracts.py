"""Every ImportStore adapter against the shared contract."""

from collections.abc import AsyncIterator

import pytest

from adapters.inmemory.import_store import InMemoryImportStore
from application.sources.import_ports import ImportStore
from contracts.import_store import ImportStoreContract


class TestInMemoryImportStore(ImportStoreContract):
    @pytest.fixture
    async def import_store(self) -> AsyncIterator[ImportStore]:
        store = InMemoryImportStore()
        yield store
        await store.close()
