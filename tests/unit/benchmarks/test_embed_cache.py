"""The benchmarks' embedding cache: documents from disk, a model's query run live."""

from collections.abc import Sequence
from pathlib import Path

import pytest

from adapters.inmemory.hashing_embedder import HashingEmbedder
from application.ports.records import EmbeddingSpace, Vector
from benchmarks._embed_cache import CachedEmbedder, DiskEmbeddingCache


class QueryRun(HashingEmbedder):
    """Query vectors flipped, so a test can tell which run answered."""

    async def embed_queries(self, texts: Sequence[str]) -> list[Vector]:
        return [[-x for x in v] for v in await self.embed(texts)]


def _cached(tmp_path: Path, inner: HashingEmbedder) -> CachedEmbedder:
    space: EmbeddingSpace = inner.space
    return CachedEmbedder(inner, DiskEmbeddingCache(tmp_path, space))


async def test_query_runs_pass_through_live_and_are_never_cached(tmp_path: Path) -> None:
    inner = QueryRun(dimension=8)
    cached = _cached(tmp_path, inner)
    (query,) = await cached.embed_queries(["where is it"])
    (document,) = await cached.embed(["where is it"])
    assert query == pytest.approx([-x for x in document], abs=1e-6)
    # the document vector came from the model, not from a cached query vector
    reopened = DiskEmbeddingCache(tmp_path, inner.space)
    assert len(reopened) == 1


async def test_a_model_without_a_query_run_embeds_queries_through_the_cache(
    tmp_path: Path,
) -> None:
    inner = HashingEmbedder(dimension=8)
    cached = _cached(tmp_path, inner)
    first = await cached.embed_queries(["where is it"])
    calls = inner.calls
    assert await cached.embed_queries(["where is it"]) == first
    assert inner.calls == calls  # the second answer came from the cache
