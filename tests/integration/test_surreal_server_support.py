"""The server variants' plumbing: skipped with the reason unless a URL is set, and wiped.

The wipe is the same SurrealQL on every engine, so it is checked here on the
embedded one: a test server starts each test with no namespace at all.
"""

import pytest

from adapters.surreal.memory_store import SurrealMemoryStore
from contracts.embedding_queue import _write
from contracts.samples import SPACE
from tests.support.surreal_server import SERVER_URL_ENV, server_store, server_url, wipe

pytestmark = pytest.mark.slow


async def test_without_a_url_the_server_variants_skip_and_say_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(SERVER_URL_ENV, "  ")
    assert server_url() is None
    with pytest.raises(pytest.skip.Exception, match=SERVER_URL_ENV):
        await server_store()


async def test_the_wipe_removes_every_organisations_namespace() -> None:
    store = SurrealMemoryStore("mem://")
    try:
        for org in ("org-one", "org-two"):
            await store.prepare(org, SPACE)
            await store.save_memories([_write("s1", org, ["amber lantern"])])
        removed = await wipe(store)
        assert len(removed) >= 2
        (root,) = await store.connection.query(None, "INFO FOR ROOT;", operation="listing")
        assert not (root or {}).get("namespaces")
        await store.prepare("org-one", SPACE)  # usable again, and empty
        assert await store.count_chunks("org-one") == 0
    finally:
        await store.close()
