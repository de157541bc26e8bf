"""SurrealDB-only promises the shared contract cannot express.

Durability across a close and reopen, the data-directory lock seen from a
second process, a transaction that really rolls back inside the engine, and
routing that never depends on connection state.
"""

import asyncio
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from adapters.surreal import memory_store as memory_store_module
from adapters.surreal.codec import namespace_for
from adapters.surreal.memory_store import SurrealMemoryStore
from adapters.surreal.native_index import SurrealNativeIndex
from adapters.surreal.schema import MIGRATIONS
from application.ports.records import CandidateFilter, EmbeddingSpace, ScopeRef
from contracts.samples import SPACE, embedded, make_chunk, make_source, memory, unit
from domain.errors import ConflictError, StoreUnavailableError, UpstreamError
from domain.reasons import ReasonCode
from domain.scopes import MemoryScope

pytestmark = pytest.mark.slow

ORG = "org-durable"


async def test_surrealkv_keeps_everything_across_close_and_reopen(tmp_path: Path) -> None:
    url = f"surrealkv://{tmp_path / 'data'}"
    store = SurrealMemoryStore(url)
    await store.prepare(ORG, SPACE)
    source, chunks = memory("s1", ORG, ["c1", "c2"])
    await store.save_memory(source, chunks)
    await store.cache_embeddings(ORG, SPACE.model, {"h1": [0.25, 0.5, 0.75, 1.0]})
    await store.close()

    reopened = SurrealMemoryStore(url)
    try:
        # no prepare: a new process finds the organisation on disk
        assert await reopened.get_source(ORG, "s1") == source
        assert set(await reopened.get_chunks(ORG, ["c1", "c2"])) == {"c1", "c2"}
        assert await reopened.count_chunks(ORG) == 2
        entries = await reopened.scan_index_entries(ORG, None, 10)
        assert [e.chunk_id for e in entries] == ["c1", "c2"]
        assert set(await reopened.cached_embeddings(ORG, SPACE.model, ["h1"])) == {"h1"}
        with pytest.raises(ConflictError):
            await reopened.prepare(ORG, EmbeddingSpace(model="other", dimension=4))
        await reopened.prepare(ORG, SPACE)
        hits = await SurrealNativeIndex(reopened).lexical(ORG, "chunk", 5, CandidateFilter())
        assert {h.item_id for h in hits} == {"c1", "c2"}
    finally:
        await reopened.close()


_OPEN_SCRIPT = textwrap.dedent(
    """
    import asyncio, sys
    from adapters.surreal.memory_store import SurrealMemoryStore
    from domain.errors import StoreUnavailableError

    async def main() -> int:
        store = SurrealMemoryStore(sys.argv[1])
        try:
            await store.open()
        except StoreUnavailableError as exc:
            print(exc.reason.value)
            print(exc.detail)
            return 3
        await store.close()
        print("opened")
        return 0

    sys.exit(asyncio.run(main()))
    """
)


async def test_a_second_process_gets_store_locked(tmp_path: Path) -> None:
    url = f"surrealkv://{tmp_path / 'data'}"
    store = SurrealMemoryStore(url)
    await store.open()
    try:
        done = subprocess.run(  # noqa: ASYNC221 - a second process is the point
            [sys.executable, "-c", _OPEN_SCRIPT, url],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=Path(__file__).parents[2],
            check=False,
        )
    finally:
        await store.close()
    assert done.returncode == 3, done.stdout + done.stderr
    reason, detail = done.stdout.splitlines()[:2]
    assert reason == ReasonCode.STORE_LOCKED.value
    assert "another Tessera process" in detail
    assert str(tmp_path / "data") in detail


async def test_a_second_store_in_the_same_process_gets_store_locked(tmp_path: Path) -> None:
    url = f"surrealkv://{tmp_path / 'data'}"
    first = SurrealMemoryStore(url)
    await first.open()
    try:
        with pytest.raises(StoreUnavailableError) as caught:
            await SurrealMemoryStore(url).open()
        assert caught.value.reason is ReasonCode.STORE_LOCKED
    finally:
        await first.close()


async def test_the_engine_rolls_back_a_failed_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """Skip the Python-side checks so the third INSERT batch fails inside SurrealDB."""
    monkeypatch.setattr(memory_store_module, "check_memory", lambda *args: None)
    store = SurrealMemoryStore("mem://")
    try:
        await store.prepare(ORG, SPACE)
        source = make_source("s1", ORG)
        chunks = [embedded(make_chunk(f"c{n:03d}", source, ordinal=n)) for n in range(120)]
        chunks[110] = embedded(chunks[110].chunk, [1.0, 0.0, 0.0])  # wrong dimension
        with pytest.raises(UpstreamError) as caught:
            await store.save_memory(source, chunks)
        assert caught.value.reason is ReasonCode.STORE_FAILED
        assert await store.get_source(ORG, "s1") is None
        assert await store.count_chunks(ORG) == 0
    finally:
        await store.close()


async def test_routing_does_not_rely_on_connection_state() -> None:
    store = SurrealMemoryStore("mem://")
    try:
        await store.prepare(ORG, SPACE)
        # a namespaced query leaves no namespace selected on the shared connection
        with pytest.raises(UpstreamError):
            await store.connection.query(None, "SELECT * FROM chunk;", operation="probing")
        # reading an unknown organisation creates nothing
        assert await store.get_source("org-unknown", "s1") is None
        (root,) = await store.connection.query(None, "INFO FOR ROOT;", operation="probing")
        assert set(root["namespaces"]) == {namespace_for(ORG)}
    finally:
        await store.close()


async def test_migrations_are_recorded_once() -> None:
    store = SurrealMemoryStore("mem://")
    try:
        await store.prepare(ORG, SPACE)
        await store.prepare(ORG, SPACE)
        versions, space = await store.connection.query(
            namespace_for(ORG),
            "SELECT VALUE version FROM migration; SELECT model, dimension FROM meta:embedding;",
            operation="probing",
        )
        assert versions == [m.version for m in MIGRATIONS]
        assert space == [{"model": SPACE.model, "dimension": SPACE.dimension}]
        assert namespace_for(ORG).startswith("org_") and len(namespace_for(ORG)) == 36
    finally:
        await store.close()


async def test_unreachable_or_closed_stores_are_unavailable() -> None:
    for url in ("ws://127.0.0.1:9", "nosuch://x"):
        with pytest.raises(StoreUnavailableError) as caught:
            await SurrealMemoryStore(url).open()
        assert caught.value.reason is ReasonCode.STORE_UNAVAILABLE
    store = SurrealMemoryStore("mem://")
    await store.open()
    await store.close()
    with pytest.raises(StoreUnavailableError):
        await store.count_chunks(ORG)


async def test_native_vector_search_widens_past_a_selective_filter() -> None:
    store = SurrealMemoryStore("mem://")
    index = SurrealNativeIndex(store)
    try:
        await store.prepare(ORG, SPACE)
        crowd = make_source("crowd", ORG, scope=MemoryScope.TEAM, scope_key="t2")
        near = [
            embedded(make_chunk(f"n{n:03d}", crowd, ordinal=n), unit([1, n / 1000, 0, 0]))
            for n in range(300)
        ]
        await store.save_memory(crowd, near)
        mine = make_source("mine", ORG, scope=MemoryScope.PRIVATE, scope_key="u1")
        await store.save_memory(mine, [embedded(make_chunk("far", mine), unit([-1, 0, 0, 1]))])
        visible = CandidateFilter(visible=frozenset({ScopeRef(MemoryScope.PRIVATE, "u1")}))
        hits = await index.vector(ORG, unit([1, 0, 0, 0]), 5, visible)
        assert [h.item_id for h in hits] == ["far"]
        with pytest.raises(ConflictError):
            await index.vector(ORG, [1.0, 0.0], 5, visible)
    finally:
        await store.close()


async def test_concurrent_reads_of_two_organisations_never_cross() -> None:
    store = SurrealMemoryStore("mem://")
    try:
        orgs = ("org-left", "org-right")
        for org in orgs:
            await store.prepare(org, SPACE)
            await store.save_memory(make_source("same-id", org, content=f"belongs to {org}"), [])

        async def read(org: str) -> str:
            source = await store.get_source(org, "same-id")
            assert source is not None
            return source.content

        answers = await asyncio.gather(*(read(orgs[n % 2]) for n in range(200)))
        assert answers == [f"belongs to {orgs[n % 2]}" for n in range(200)]
    finally:
        await store.close()


async def test_checkpoints_reopen_the_engine_without_losing_writes_or_failing_reads(
    tmp_path: Path,
) -> None:
    store = SurrealMemoryStore(f"surrealkv://{tmp_path / 'data'}", checkpoint_every=5)
    await store.prepare(ORG, SPACE)
    failures: list[BaseException] = []
    writing = True

    async def reader() -> int:
        reads = 0
        while writing:
            try:
                await store.count_chunks(ORG)
                await store.get_chunks(ORG, ["w0c0", "w3c1"])
                reads += 1
            except BaseException as exc:  # any failure during a checkpoint is the bug
                failures.append(exc)
            await asyncio.sleep(0)
        return reads

    readers = [asyncio.create_task(reader()) for _ in range(3)]
    for n in range(12):
        await store.save_memory(*memory(f"w{n}", ORG, [f"w{n}c0", f"w{n}c1"]))
    writing = False
    reads = await asyncio.gather(*readers)
    try:
        assert failures == []
        assert sum(reads) > 0
        assert store.connection.checkpoints >= 3  # every 5 rows written (3 per memory)
        assert await store.count_chunks(ORG) == 24
        assert set(await store.get_chunks(ORG, ["w0c0", "w11c1"])) == {"w0c0", "w11c1"}
    finally:
        await store.close()


def test_checkpoint_interval_must_be_positive() -> None:
    with pytest.raises(ValueError, match="checkpoint_every"):
        SurrealMemoryStore("mem://", checkpoint_every=0)


async def test_a_checkpoint_waits_for_queries_in_flight_and_holds_new_ones(
    tmp_path: Path,
) -> None:
    store = SurrealMemoryStore(f"surrealkv://{tmp_path / 'data'}")
    await store.prepare(ORG, SPACE)
    conn = store.connection
    await conn._enter()  # a query in flight
    checkpoint = asyncio.create_task(conn.checkpoint())
    await asyncio.sleep(0.05)
    assert not checkpoint.done()
    assert conn.checkpoints == 0
    held = asyncio.create_task(store.count_chunks(ORG))
    await asyncio.sleep(0.05)
    assert not held.done()  # new queries wait for the reopen
    conn._leave()
    await checkpoint
    assert conn.checkpoints == 1
    assert await held == 0
    await store.close()
