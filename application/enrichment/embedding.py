"""Embedding with a cache, so the same text is never embedded twice.

Remembered text is cached in the store by (model, content hash), per
organisation, so it survives restarts and never crosses tenants. Query
vectors are cached in process only: queries are not memory and are not kept.
"""

from collections import OrderedDict
from collections.abc import Collection, Mapping, Sequence

from application.ports import Embedder, MemoryStore, PreloadingEmbedder, QueryEmbedder
from application.ports.records import Vector
from domain.errors import TesseraError, UpstreamError
from domain.hashing import content_hash
from domain.reasons import ReasonCode

__all__ = [
    "QueryVectorCache",
    "embed_for_memory",
    "embed_queries",
    "embed_texts",
    "preload",
]


async def preload(embedder: Embedder) -> None:
    """Load what a query needs now where the embedder can (``PreloadingEmbedder``);
    a hosted embedder has nothing to load and is not called."""
    if isinstance(embedder, PreloadingEmbedder):
        await embedder.preload()


async def embed_queries(embedder: Embedder, texts: Sequence[str]) -> list[Vector]:
    """Search queries' vectors: the embedder's query run where it has one
    (``QueryEmbedder``), else ``embed``."""
    if isinstance(embedder, QueryEmbedder):
        return await embedder.embed_queries(texts)
    return await embedder.embed(texts)


async def _embed(
    embedder: Embedder, texts: Sequence[str], *, queries: bool = False
) -> list[Vector]:
    try:
        if queries:
            vectors = await embed_queries(embedder, texts)
        else:
            vectors = await embedder.embed(texts)
    except TesseraError:
        raise
    except Exception as exc:  # a model failure must not surface as a 500 with a trace
        raise UpstreamError(
            ReasonCode.EMBEDDER_FAILED,
            f"embedder {embedder.space.model} failed: {type(exc).__name__}",
        ) from exc
    if len(vectors) != len(texts):
        raise UpstreamError(
            ReasonCode.EMBEDDER_FAILED, "embedder returned a different number of vectors"
        )
    return vectors


async def embed_for_memory(
    store: MemoryStore, embedder: Embedder, org_id: str, texts: Sequence[str]
) -> tuple[list[Vector], int]:
    """Vectors for ``texts`` in order, and how many came from the cache."""
    model = embedder.space.model
    hashes = [content_hash(t) for t in texts]
    cached = await store.cached_embeddings(org_id, model, sorted(set(hashes)))
    missing: dict[str, str] = {}
    for h, t in zip(hashes, texts, strict=True):
        if h not in cached and h not in missing:
            missing[h] = t
    if missing:
        fresh = await _embed(embedder, list(missing.values()))
        new = dict(zip(missing.keys(), fresh, strict=True))
        await store.cache_embeddings(org_id, model, new)
        cached = {**cached, **new}
    hits = sum(1 for h in hashes if h not in missing)
    return [cached[h] for h in hashes], hits


async def embed_texts(
    store: MemoryStore,
    embedder: Embedder,
    org_id: str,
    texts: Mapping[str, str],
    missed: Collection[str] = (),
) -> dict[str, Vector]:
    """Vectors for ``texts`` (text hash -> text), from the cache where it has them.

    ``missed``: hashes the cache was just read for and did not hold (the write path reads
    it as it saves): embedded without a second read, one round trip of three an ingest
    made per batch. Writes nothing: the embedding lane caches a vector together with
    attaching it, so the vector of a text deleted meanwhile is never kept.
    """
    unread = sorted(h for h in texts if h not in missed)
    cached = await store.cached_embeddings(org_id, embedder.space.model, unread) if unread else {}
    missing = {h: t for h, t in texts.items() if h not in cached}
    if missing:
        fresh = await _embed(embedder, list(missing.values()))
        cached = {**cached, **dict(zip(missing.keys(), fresh, strict=True))}
    return {h: cached[h] for h in texts}


class QueryVectorCache:
    """A small LRU of query vectors; repeated queries skip the model.

    Keyed by model too: the embedder may switch models (``tessera reembed``) while
    the process runs, and a query vector of the old model must not answer after."""

    def __init__(self, embedder: Embedder, capacity: int = 1024) -> None:
        self._embedder = embedder
        self._capacity = capacity
        self._entries: OrderedDict[tuple[str, str], Vector] = OrderedDict()

    async def vector_for(self, query: str) -> Vector:
        key = (self._embedder.space.model, query)
        hit = self._entries.get(key)
        if hit is not None:
            self._entries.move_to_end(key)
            return hit
        (vector,) = await _embed(self._embedder, [query], queries=True)
        self._entries[key] = vector
        if len(self._entries) > self._capacity:
            self._entries.popitem(last=False)
        return vector
