"""A rebuild reads whole sources page by page, the next page while this one is indexed.

On the reference adapters, with small pages: a store that records when each page
was asked for and an index that records when each page was added, so the overlap
and its failures are seen directly rather than timed.
"""

from collections.abc import Sequence

import pytest

from adapters.inmemory.hashing_embedder import HashingEmbedder
from adapters.inmemory.memory_store import InMemoryMemoryStore
from adapters.inprocess.index import InProcessIndex
from application.indexing import readiness
from application.indexing.readiness import OrgReadiness
from application.ports.records import CandidateFilter, EmbeddingSpace, IndexEntry
from contracts.samples import SPACE, memory
from domain.errors import UpstreamError
from domain.reasons import ReasonCode

ORG = "rebuild-org"
#: source ids out of their chunks' order; s2 is longer than a page
LAYOUT = {
    "s3": ["c01", "c08"],
    "s1": ["c07", "c02", "c10", "c05"],
    "s4": ["c03"],
    "s2": ["c09", "c04", "c06", "c11", "c12"],
}


class _Log:
    def __init__(self) -> None:
        self.events: list[str] = []


class _Store(InMemoryMemoryStore):
    def __init__(self, log: _Log, fail_after: str | None = "never") -> None:
        super().__init__()
        self.log = log
        self.fail_after = fail_after

    async def scan_index_sources(
        self, org_id: str, after: str | None, limit: int
    ) -> list[IndexEntry]:
        self.log.events.append(f"read after {after}")
        if after == self.fail_after:
            raise UpstreamError(ReasonCode.STORE_FAILED, "the store went away")
        return await super().scan_index_sources(org_id, after, limit)


class _Index(InProcessIndex):
    def __init__(self, log: _Log, fail_on: int = 0) -> None:
        super().__init__(ann_policy=None)
        self.log = log
        self.fail_on = fail_on
        self.pages = 0

    async def add(self, org_id: str, entries: Sequence[IndexEntry]) -> None:
        self.pages += 1
        self.log.events.append(f"add {sorted({e.source_id for e in entries})}")
        if self.pages == self.fail_on:
            raise RuntimeError("indexing failed")
        await super().add(org_id, entries)


async def _filled(store: InMemoryMemoryStore) -> None:
    await store.prepare(ORG, SPACE)
    for source_id, chunk_ids in LAYOUT.items():
        await store.save_memory(*memory(source_id, ORG, chunk_ids))


class _Embedder(HashingEmbedder):
    """The samples' space: the store holds vectors of it."""

    @property
    def space(self) -> EmbeddingSpace:
        return SPACE


def _embedder() -> HashingEmbedder:
    return _Embedder(SPACE.dimension)


@pytest.fixture(autouse=True)
def small_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(readiness, "_REBUILD_BATCH", 3)


async def test_every_chunk_once_and_each_next_page_asked_before_this_one_is_added() -> None:
    log = _Log()
    store, index = _Store(log), _Index(log)
    await _filled(store)
    await OrgReadiness(store, index, _embedder()).ensure(ORG)

    assert log.events == [
        "read after None",
        "read after s1",  # asked for before s1's page is added
        "add ['s1']",
        "read after s2",
        "add ['s2']",
        "read after s4",
        "add ['s3', 's4']",
    ]
    held = index._orgs[ORG]
    rows = held.live(CandidateFilter())
    assert sorted(held.ids[r] for r in range(held.size) if rows[r]) == sorted(
        c for chunks in LAYOUT.values() for c in chunks
    )
    assert index.is_ready(ORG)


async def test_a_failed_add_cancels_the_read_ahead_and_leaves_the_index_not_ready() -> None:
    log = _Log()
    store, index = _Store(log), _Index(log, fail_on=2)
    await _filled(store)
    with pytest.raises(RuntimeError, match="indexing failed"):
        await OrgReadiness(store, index, _embedder()).ensure(ORG)
    assert log.events[-1] == "add ['s2']"
    assert not index.is_ready(ORG)


async def test_a_failed_read_fails_the_rebuild_and_leaves_the_index_not_ready() -> None:
    log = _Log()
    store, index = _Store(log, fail_after="s2"), _Index(log)
    await _filled(store)
    with pytest.raises(UpstreamError):
        await OrgReadiness(store, index, _embedder()).ensure(ORG)
    assert "add ['s3', 's4']" not in log.events
    assert not index.is_ready(ORG)
