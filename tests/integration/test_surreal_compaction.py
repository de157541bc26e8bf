"""A delete reaches the disk only after ``compact()``: measured on the real engine.

The embedded engine keeps deleted rows' bytes (its value log is append-only;
see adapters/surreal/compaction.py). These tests write a memory holding a
unique canary, delete it the way a delete or an organisation drop does, check
that the canary is still in the data directory's files (the engine's
behaviour this module exists for), then check that ``compact()`` removes it
while every live row, the schema and search survive.
"""

import hashlib
import os
import stat
from pathlib import Path

import pytest

from adapters.surreal.codec import namespace_for
from adapters.surreal.compaction import directory_bytes
from adapters.surreal.memory_store import SurrealMemoryStore
from adapters.surreal.native_index import SurrealNativeIndex
from application.ports.records import CandidateFilter, EmbeddedChunk, EmbeddingSpace
from contracts.samples import make_chunk, make_source, unit
from domain.errors import UpstreamError

pytestmark = pytest.mark.slow

#: the production embedder's width: a chunk row then outgrows the engine's 4 KiB
#: inline limit and lands in the value log, as real chunks do
SPACE = EmbeddingSpace(model="minilm-like", dimension=384)
KEEP, GONE = "org-keep", "org-gone"
CANARY = "Zebracanary4471"


def _vector(key: str) -> list[float]:
    digest = hashlib.sha512(key.encode()).digest() * 6
    return unit([digest[i] - 127.5 for i in range(SPACE.dimension)])


def _memory(org: str, source_id: str, text: str, n_chunks: int) -> tuple:  # type: ignore[type-arg]
    source = make_source(source_id, org, content=text)
    chunks = [
        EmbeddedChunk(
            chunk=make_chunk(f"{source_id}-c{n}", source, text=f"{text} (part {n})", ordinal=n),
            vector=_vector(f"{source_id}-c{n}"),
        )
        for n in range(n_chunks)
    ]
    return source, chunks


def _files_holding(directory: Path, needle: str) -> list[str]:
    found = []
    for root, _, files in os.walk(directory):
        for name in files:
            path = Path(root) / name
            data = path.read_bytes()
            if needle.encode() in data or needle.lower().encode() in data:
                found.append(str(path.relative_to(directory)))
    return found


def _leftovers(parent: Path) -> list[str]:
    return sorted(name for name in os.listdir(parent) if name.startswith("db."))


async def _filled(data: Path) -> SurrealMemoryStore:
    store = SurrealMemoryStore(f"surrealkv://{data}")
    for org in (KEEP, GONE):
        await store.prepare(org, SPACE)
    await store.save_memory(*_memory(KEEP, "s-secret", f"the vault code is {CANARY}", 2))
    long_note = f"{CANARY} appears in a long note. " + "padding words " * 400
    await store.save_memory(*_memory(KEEP, "s-long", long_note, 1))
    for n in range(20):
        await store.save_memory(*_memory(KEEP, f"s-live{n}", f"live note {n} about tea", 1))
    await store.save_memory(*_memory(GONE, "s-org", f"{CANARY} in an organisation to drop", 2))
    return store


async def _delete_source(store: SurrealMemoryStore, org: str, source_id: str) -> None:
    await store.connection.query(
        namespace_for(org),
        "DELETE chunk WHERE source_id = $s; DELETE type::record('source', $s);",
        {"s": source_id},
        operation="deleting a source",
        write=True,
    )


async def test_deleted_text_stays_on_disk_until_compact_removes_it(tmp_path: Path) -> None:
    data = tmp_path / "db"
    store = await _filled(data)
    try:
        for source_id in ("s-secret", "s-long"):
            await _delete_source(store, KEEP, source_id)
        await store.drop_organization(GONE)
        await store.connection.checkpoint()  # flushes the write-ahead log into tables
        assert await store.get_source(KEEP, "s-secret") is None
        # the engine's behaviour: unreachable, yet still in its files
        assert _files_holding(data, CANARY), "the engine no longer keeps deleted bytes"

        report = await store.compact()

        assert report.rewritten and report.url_kind == "surrealkv"
        assert _files_holding(data, CANARY) == []
        assert report.bytes_after < report.bytes_before
        assert _leftovers(tmp_path) == [], "no working directory is left behind"
        # everything live survived, and the engine is open for reads and writes
        assert await store.count_chunks(KEEP) == 20
        assert (await store.get_source(KEEP, "s-live3")) is not None
        assert await store.space_of(KEEP) == SPACE
        assert await store.space_of(GONE) is None
        index = SurrealNativeIndex(store)
        hits = await index.vector(KEEP, _vector("s-live7-c0"), 3, CandidateFilter())
        assert hits and hits[0].item_id == "s-live7-c0"
        lexical = await index.lexical(KEEP, "tea", 30, CandidateFilter())
        assert len(lexical) == 20
        await store.save_memory(*_memory(KEEP, "s-after", "written after compaction", 1))
    finally:
        await store.close()
    reopened = SurrealMemoryStore(f"surrealkv://{data}")
    try:
        assert await reopened.count_chunks(KEEP) == 21
    finally:
        await reopened.close()


async def test_dropping_organisations_gives_their_space_back(tmp_path: Path) -> None:
    data = tmp_path / "db"
    store = SurrealMemoryStore(f"surrealkv://{data}")
    try:
        await store.prepare(KEEP, SPACE)
        await store.save_memory(*_memory(KEEP, "s-kept", "kept note", 1))
        await store.connection.checkpoint()
        baseline = directory_bytes(data)
        for n in range(3):
            org = f"org-throwaway{n}"
            await store.prepare(org, SPACE)
            for m in range(30):
                await store.save_memory(*_memory(org, f"s{m}", f"throwaway {n} {m}", 2))
            await store.drop_organization(org)
        await store.connection.checkpoint()
        dropped = directory_bytes(data)
        await store.compact()
        assert dropped > 2 * baseline  # without compaction the drops gave nothing back
        assert directory_bytes(data) < dropped / 2
        assert await store.count_chunks(KEEP) == 1
    finally:
        await store.close()


async def test_a_failed_rewrite_leaves_the_store_as_it_was(tmp_path: Path) -> None:
    data = tmp_path / "db"
    store = await _filled(data)
    try:
        # a table name the rewrite refuses to splice into a statement
        await store.connection.query(
            namespace_for(KEEP), "DEFINE TABLE `odd-name`;", operation="odd table", write=True
        )
        with pytest.raises(UpstreamError):
            await store.compact()
        assert _leftovers(tmp_path) == []
        assert await store.count_chunks(KEEP) == 23
        await store.save_memory(*_memory(KEEP, "s-after", "still writable", 1))
    finally:
        await store.close()


async def test_memory_engine_is_rewritten_in_place() -> None:
    store = SurrealMemoryStore("mem://")
    try:
        await store.prepare(KEEP, SPACE)
        await store.save_memory(*_memory(KEEP, "s1", "kept in memory", 2))
        report = await store.compact()
        assert report.rewritten and report.bytes_after == 0
        assert report.rows >= 3
        assert await store.count_chunks(KEEP) == 2
    finally:
        await store.close()


async def test_a_server_is_not_rewritten_from_here() -> None:
    store = SurrealMemoryStore("ws://127.0.0.1:9")  # never connected: compaction is local only
    report = await store.compact()
    assert not report.rewritten and report.url_kind == "ws"


async def test_versioned_engine_keeps_even_short_rows_until_compact(tmp_path: Path) -> None:
    # with versioning every value goes to the value log, so a delete leaves all of it
    data = tmp_path / "db"
    store = SurrealMemoryStore(f"surrealkv+versioned://{data}")
    try:
        await store.prepare(KEEP, SPACE)
        await store.save_memory(*_memory(KEEP, "s-secret", f"short {CANARY}", 1))
        await store.save_memory(*_memory(KEEP, "s-live", "a live note", 1))
        await _delete_source(store, KEEP, "s-secret")
        await store.connection.checkpoint()
        assert _files_holding(data, CANARY)
        report = await store.compact()
        assert report.rewritten and report.url_kind == "surrealkv+versioned"
        assert _files_holding(data, CANARY) == []
        assert await store.count_chunks(KEEP) == 1
    finally:
        await store.close()


async def test_a_compacted_store_is_owner_only_as_on_every_open(tmp_path: Path) -> None:
    data = tmp_path / "db"
    store = await _filled(data)
    try:
        await _delete_source(store, KEEP, "s-secret")
        await store.compact()
        loose = [
            f"{path.relative_to(tmp_path)} {stat.S_IMODE(path.stat().st_mode):o}"
            for path in [data, *data.rglob("*")]
            if stat.S_IMODE(path.stat().st_mode) & 0o077
        ]
        assert loose == [], "group or other may read the compacted store"
        await store.save_memory(*_memory(KEEP, "s-after", "written after compaction", 1))
    finally:
        await store.close()
