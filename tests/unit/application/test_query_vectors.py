"""Search queries take the embedder's query run where it has one; documents never do."""

from collections.abc import Sequence

import pytest

from adapters.inmemory.hashing_embedder import HashingEmbedder
from adapters.inmemory.memory_store import InMemoryMemoryStore
from application.enrichment.embedding import QueryVectorCache, embed_for_memory
from application.operations.reembed.switchable import SwitchableEmbedder
from application.ports import Embedder, QueryEmbedder
from application.ports.records import EmbeddingSpace, Vector
from domain.errors import UpstreamError
from domain.reasons import ReasonCode


class TwoRuns:
    """An embedder whose query run gives a recognisably different vector."""

    def __init__(self) -> None:
        self.documents: list[str] = []
        self.queries: list[str] = []

    @property
    def space(self) -> EmbeddingSpace:
        return EmbeddingSpace(model="two-runs", dimension=2)

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        self.documents.extend(texts)
        return [[1.0, 0.0] for _ in texts]

    async def embed_queries(self, texts: Sequence[str]) -> list[Vector]:
        self.queries.extend(texts)
        return [[0.0, 1.0] for _ in texts]


class BrokenQueries(TwoRuns):
    async def embed_queries(self, texts: Sequence[str]) -> list[Vector]:
        raise RuntimeError("secret model path /opt/x")


def test_the_capability_is_recognised() -> None:
    assert isinstance(TwoRuns(), QueryEmbedder)
    assert not isinstance(HashingEmbedder(), QueryEmbedder)


async def test_queries_use_the_query_run_and_are_cached() -> None:
    embedder = TwoRuns()
    cache = QueryVectorCache(embedder)
    assert await cache.vector_for("what did I say") == [0.0, 1.0]
    assert await cache.vector_for("what did I say") == [0.0, 1.0]
    assert embedder.queries == ["what did I say"]
    assert embedder.documents == []


async def test_an_embedder_without_a_query_run_embeds_queries_as_documents() -> None:
    embedder = HashingEmbedder()
    cache = QueryVectorCache(embedder)
    (expected,) = await embedder.embed(["hello world"])
    assert await cache.vector_for("hello world") == expected


async def test_remembered_text_never_takes_the_query_run() -> None:
    embedder = TwoRuns()
    store = InMemoryMemoryStore()
    await store.prepare("org", embedder.space)
    vectors, hits = await embed_for_memory(store, embedder, "org", ["a note"])
    assert (vectors, hits) == ([[1.0, 0.0]], 0)
    assert embedder.queries == []


async def test_a_failing_query_run_is_an_upstream_error_without_its_message() -> None:
    cache = QueryVectorCache(BrokenQueries())
    with pytest.raises(UpstreamError) as caught:
        await cache.vector_for("q")
    assert caught.value.reason is ReasonCode.EMBEDDER_FAILED
    assert "/opt/x" not in str(caught.value)


async def test_the_switchable_embedder_forwards_the_query_run_of_its_current_model() -> None:
    two = TwoRuns()
    switchable = SwitchableEmbedder(two)
    assert await switchable.embed_queries(["q"]) == [[0.0, 1.0]]
    plain: Embedder = HashingEmbedder()
    switchable.switch_to(plain)
    assert await switchable.embed_queries(["q"]) == await plain.embed(["q"])
    assert two.queries == ["q"]
