"""An import's ``embedding_pending`` read from the store's durable queue, by any process.

The pairs below are the memory store and the import store a composition root
wires together (the reference pair, and SurrealDB sharing one connection).
"""

from collections.abc import AsyncIterator

import pytest

from adapters.inmemory.import_store import InMemoryImportStore
from adapters.inmemory.memory_store import InMemoryMemoryStore
from adapters.surreal.import_store import SurrealImportStore
from adapters.surreal.memory_store import SurrealMemoryStore
from application.imports.import_ports import ImportStore
from application.ports import MemoryStore
from application.ports.writes import MemoryWrite
from contracts.samples import SPACE, make_chunk, make_source, unit
from domain.models import MetadataValue
from domain.scopes import MemoryScope

ORG = "org-pending"
SPACE_KEY = "private/u1"


@pytest.fixture(params=["reference", "surreal"])
async def pair(request: pytest.FixtureRequest) -> AsyncIterator[tuple[MemoryStore, ImportStore]]:
    if request.param == "reference":
        memory = InMemoryMemoryStore()
        yield memory, InMemoryImportStore(memory)
        return
    store = SurrealMemoryStore("mem://")
    yield store, SurrealImportStore(store.connection)
    await store.close()


def _write(sid: str, chunks: int, metadata: dict[str, MetadataValue], **kw: object) -> MemoryWrite:
    source = make_source(sid, ORG, metadata=metadata, **kw)  # type: ignore[arg-type]
    made = [make_chunk(f"{sid}-c{n}", source, ordinal=n) for n in range(chunks)]
    return MemoryWrite(source=source, chunks=made, vectors={})


async def test_pending_chunks_of_one_import_are_counted_from_the_store(
    pair: tuple[MemoryStore, ImportStore],
) -> None:
    memory, imports = pair
    assert await imports.embedding_pending(ORG, SPACE_KEY, "imp-1") == 0  # no organisation yet
    await memory.prepare(ORG, SPACE)
    await memory.save_memories(
        [
            _write("s1", 2, {"import_id": "imp-1", "import_key": "k1"}),
            _write("s2", 3, {"import_id": "imp-1", "import_key": "k2"}),
            _write("s3", 1, {"import_id": "imp-2", "import_key": "k3"}),
            # the same text as a value elsewhere in the metadata is not the import
            _write("s4", 1, {"note": '"import_id":"imp-1"'}),
            _write("s5", 1, {"import_id": "imp-1"}, scope=MemoryScope.TEAM, scope_key="t1"),
        ]
    )
    assert await imports.embedding_pending(ORG, SPACE_KEY, "imp-1") == 5
    assert await imports.embedding_pending(ORG, SPACE_KEY, "imp-2") == 1
    assert await imports.embedding_pending(ORG, "team/t1", "imp-1") == 1
    assert await imports.embedding_pending(ORG, SPACE_KEY, "imp-3") == 0
    await memory.attach_vectors(
        ORG, SPACE.model, {"s1-c0": unit([1, 0, 0, 0]), "s2-c2": unit([0, 1, 0, 0])}
    )
    assert await imports.embedding_pending(ORG, SPACE_KEY, "imp-1") == 3


async def test_an_import_store_that_cannot_see_the_memory_store_says_so() -> None:
    assert await InMemoryImportStore().embedding_pending(ORG, SPACE_KEY, "imp-1") is None
