"""Each vector is stored once where the in-process index serves, twice where the native does.

A store opened for the in-process index writes a chunk's vector as ``vec`` bytes
alone (saved with it, attached by the embedding lane, or switched in by a
re-embed); opened for the native index, it first gives every such row its float
copy (``emb``), page by page, so SurrealDB's HNSW index finds every chunk. A
compaction copies each row as it was.
"""

import struct
from pathlib import Path
from typing import Any

import pytest

from adapters.surreal import float_vectors
from adapters.surreal.codec import namespace_for
from adapters.surreal.float_vectors import fill_floats
from adapters.surreal.memory_store import SurrealMemoryStore
from adapters.surreal.native_index import SurrealNativeIndex
from application.ports.records import CandidateFilter, EmbeddedChunk, EmbeddingSpace
from application.ports.writes import MemoryWrite
from contracts.samples import SPACE, make_chunk, make_source, unit

pytestmark = pytest.mark.slow

ORG = "org-floats"
NAMESPACE = namespace_for(ORG)


def _vector(n: int) -> list[float]:
    return unit([1.0, 0.1 * n, (-1.0) ** n, 0.03 * n * n])


async def _save(store: SurrealMemoryStore, source_id: str, first: int, count: int) -> None:
    source = make_source(source_id, ORG, content=f"{source_id} about lanterns")
    chunks = [
        EmbeddedChunk(
            chunk=make_chunk(f"{source_id}-{n}", source, text=f"lantern {n}", ordinal=n - first),
            vector=_vector(n),
        )
        for n in range(first, first + count)
    ]
    await store.save_memory(source, chunks)


async def _rows(store: SurrealMemoryStore) -> dict[str, dict[str, Any]]:
    (rows,) = await store.connection.query(
        NAMESPACE,
        "SELECT meta::id(id) AS id, emb, vec FROM chunk;",
        operation="reading the test's chunks",
    )
    return {str(r["id"]): r for r in rows or []}


def _packed(row: dict[str, Any]) -> list[float]:
    vec = row["vec"]
    return list(struct.unpack(f"<{len(vec) // 4}f", vec))


async def _filled_in_process(url: str) -> None:
    """Three sources of three chunks, a fourth chunk attached by the lane afterwards."""
    plain = SurrealMemoryStore(url, native_search=False)
    try:
        await plain.prepare(ORG, SPACE)
        for s in range(3):
            await _save(plain, f"s{s}", 3 * s, 3)
        source = make_source("s3", ORG, content="a lantern saved before its vector")
        pending = MemoryWrite(source=source, chunks=[make_chunk("s3-9", source)], vectors={})
        await plain.save_memories([pending])
        attached = await plain.attach_vectors(ORG, SPACE.model, {"s3-9": _vector(9)})
        assert attached == ["s3-9"]
        rows = await _rows(plain)
        assert len(rows) == 10
        assert all(r.get("emb") is None for r in rows.values()), "a float copy was written"
        assert _packed(rows["s1-4"]) == pytest.approx(_vector(4), abs=1e-6)
        entries = {e.chunk_id: e for e in await plain.scan_index_entries(ORG, None, 20)}
        assert entries["s3-9"].vector == pytest.approx(_vector(9), abs=1e-6)
    finally:
        await plain.close()


async def test_the_in_process_index_keeps_each_vector_once_and_the_native_copies_it_first(
    tmp_path: Path,
) -> None:
    url = f"surrealkv://{tmp_path / 'data'}"
    await _filled_in_process(url)

    native = SurrealMemoryStore(url)
    try:
        await native.prepare(ORG, SPACE)
        rows = await _rows(native)
        for chunk_id, row in rows.items():
            assert row.get("emb") == pytest.approx(_packed(row), abs=1e-6), chunk_id
        hits = await SurrealNativeIndex(native).vector(ORG, _vector(9), 3, CandidateFilter())
        assert hits and hits[0].item_id == "s3-9"
        assert await fill_floats(native.connection, NAMESPACE) == 0, "the mark stayed"
        await _save(native, "s4", 20, 1)  # the native store writes both copies itself
        assert (await _rows(native))["s4-20"].get("emb") is not None
    finally:
        await native.close()


async def test_filling_reads_in_pages_that_may_cut_a_source_and_gives_memory_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"surrealkv://{tmp_path / 'data'}"
    await _filled_in_process(url)
    monkeypatch.setattr(float_vectors, "RELEASE_SCANNED_EVERY", 4)
    store = SurrealMemoryStore(url)  # opened without preparing: nothing filled yet
    try:
        await store.open()
        reopened = store.connection.checkpoints
        assert await fill_floats(store.connection, NAMESPACE, page=2) == 10
        assert store.connection.checkpoints > reopened  # the engine's read memory released
        rows = await _rows(store)
        assert all(r.get("emb") == pytest.approx(_packed(r), abs=1e-6) for r in rows.values())
    finally:
        await store.close()


async def test_a_compaction_copies_each_row_with_the_vectors_it_held(tmp_path: Path) -> None:
    url = f"surrealkv://{tmp_path / 'data'}"
    native = SurrealMemoryStore(url)
    try:
        await native.prepare(ORG, SPACE)
        await _save(native, "both", 0, 2)
    finally:
        await native.close()
    plain = SurrealMemoryStore(url, native_search=False)
    try:
        await plain.prepare(ORG, SPACE)
        await _save(plain, "once", 5, 2)
        report = await plain.compact()
        assert report.rewritten
        rows = await _rows(plain)
        assert rows["both-0"].get("emb") == pytest.approx(_vector(0), abs=1e-6)
        assert rows["once-5"].get("emb") is None
        assert _packed(rows["once-5"]) == pytest.approx(_vector(5), abs=1e-6)
    finally:
        await plain.close()


async def test_a_re_embed_switch_keeps_the_new_vectors_once_in_process(tmp_path: Path) -> None:
    plain = SurrealMemoryStore(f"surrealkv://{tmp_path / 'data'}", native_search=False)
    target = EmbeddingSpace(model="next-model", dimension=3)
    try:
        await plain.prepare(ORG, SPACE)
        await _save(plain, "s0", 0, 2)
        staged = {"s0-0": unit([1.0, 0.0, 0.5]), "s0-1": unit([0.0, 1.0, 0.5])}
        assert await plain.stage_vectors(ORG, target, staged) == 2
        assert await plain.switch_space(ORG, target) == 2
        rows = await _rows(plain)
        assert rows["s0-1"].get("emb") is None
        assert _packed(rows["s0-1"]) == pytest.approx(staged["s0-1"], abs=1e-6)
    finally:
        await plain.close()
