"""SurrealDB's own chunk search indexes exist only where the native index reads them.

A store opened for the in-process index removes them (a write no longer pays for
postings nothing reads); the same data opened for the native index gets them back,
built from the chunks already there, so its search finds every chunk.
"""

from pathlib import Path

import pytest

from adapters.surreal.codec import namespace_for
from adapters.surreal.memory_store import SurrealMemoryStore
from adapters.surreal.native_index import SurrealNativeIndex
from application.ports.records import CandidateFilter
from contracts.samples import SPACE, embedded, make_chunk, make_source, unit
from entrypoints.container import make_index
from entrypoints.settings import IndexKind, SettingsError

pytestmark = pytest.mark.slow

ORG = "org-indexes"


async def _index_names(store: SurrealMemoryStore) -> set[str]:
    (info,) = await store.connection.query(
        namespace_for(ORG), "INFO FOR TABLE chunk;", operation="reading the chunk table"
    )
    return set((info or {}).get("indexes", {}))


async def test_indexes_follow_the_index_kind_and_are_rebuilt_from_stored_chunks(
    tmp_path: Path,
) -> None:
    url = f"surrealkv://{tmp_path / 'data'}"
    plain = SurrealMemoryStore(url, native_search=False)
    try:
        await plain.prepare(ORG, SPACE)
        assert not {"chunk_text", "chunk_emb"} & await _index_names(plain)
        assert "chunk_source" in await _index_names(plain)  # the store's own lookups stay
        source = make_source("s1", ORG, content="otters hold hands while sleeping")
        chunk = make_chunk("c1", source, text="otters hold hands while sleeping")
        await plain.save_memory(source, [embedded(chunk, unit([1, 0, 0, 0]))])
        entries = await plain.scan_index_entries(ORG, None, 10)
        assert [e.chunk_id for e in entries] == ["c1"]  # what the in-process index loads
    finally:
        await plain.close()

    native = SurrealMemoryStore(url)
    try:
        await native.prepare(ORG, SPACE)
        assert {"chunk_text", "chunk_emb"} <= await _index_names(native)
        index = SurrealNativeIndex(native)
        lexical = await index.lexical(ORG, "otters", 5, CandidateFilter())
        assert [h.item_id for h in lexical] == ["c1"]
        vector = await index.vector(ORG, unit([1, 0, 0, 0]), 5, CandidateFilter())
        assert [h.item_id for h in vector] == ["c1"]
    finally:
        await native.close()


def test_the_native_index_refuses_a_store_without_its_indexes() -> None:
    with pytest.raises(SettingsError):
        make_index(IndexKind.SURREAL, SurrealMemoryStore("mem://", native_search=False))
