"""The store and native-index tests against a SurrealDB server, by URL, when one is given.

Why: past one machine Tessera runs on SurrealDB's own cluster (docs/scaling.md),
so every store promise must hold over ``ws://`` as it does embedded. No
server binary is reachable where these tests usually run, so the server
variants skip with this module's reason unless ``TESSERA_TEST_SURREAL_URL``
names one (``ws://host:8000``; ``TESSERA_TEST_SURREAL_USER`` /
``TESSERA_TEST_SURREAL_PASSWORD``, default root / root).

The server must be a throwaway one: each test starts by removing every
namespace on it (each organisation lives in its own namespace, and the
tests reuse organisation ids), so tests do not see each other's data.
"""

import os

import pytest

from adapters.surreal.memory_store import SurrealMemoryStore

__all__ = ["SERVER_URL_ENV", "SKIP_REASON", "server_store", "server_url", "wipe"]

SERVER_URL_ENV = "TESSERA_TEST_SURREAL_URL"
SKIP_REASON = (
    f"{SERVER_URL_ENV} is not set: no SurrealDB server to test against "
    "(set it to a throwaway server's ws://host:port; every namespace on it is removed per test)"
)


def server_url() -> str | None:
    url = os.environ.get(SERVER_URL_ENV, "").strip()
    return url or None


async def wipe(store: SurrealMemoryStore) -> list[str]:
    """Remove every namespace the store's server holds; the names removed."""
    conn = store.connection
    (root,) = await conn.query(None, "INFO FOR ROOT;", operation="listing namespaces")
    names = sorted((root or {}).get("namespaces", {}))
    for name in names:
        if not name.replace("_", "").isalnum():
            raise ValueError(f"unexpected namespace name {name!r} on the test server")
        await conn.query(
            None, f"REMOVE NAMESPACE IF EXISTS {name};", operation="wiping", write=True
        )
    return names


async def server_store(*, native_search: bool = True) -> SurrealMemoryStore:
    """A store on the test server, wiped; skips the test when no server is set."""
    url = server_url()
    if url is None:
        pytest.skip(SKIP_REASON)
    store = SurrealMemoryStore(
        url,
        username=os.environ.get("TESSERA_TEST_SURREAL_USER", "root"),
        password=os.environ.get("TESSERA_TEST_SURREAL_PASSWORD", "root"),
        native_search=native_search,
    )
    await store.open()
    await wipe(store)
    return store
