"""An on-disk embedding cache for benchmark runs, keyed by model and text hash.

Why: embedding the LongMemEval haystacks with the offline MiniLM takes most
of an hour on two cores, while ranking work needs many reruns. Vectors are
appended to one file per model under the git-ignored ``benchmarks/out/``;
a record is the 64 hex digits of the text's sha256 followed by the float32
vector, so a run killed mid-write loses at most its last record (a torn
tail is ignored on load) and any later change to ranking reuses every vector.

``CachedEmbedder`` wraps a real embedder behind the ``Embedder`` port, so the
service under test is the production one; a model's query run
(``QueryEmbedder``) is passed through live, uncached. Query embeddings can be forced
live (``serve_from_cache = False``) so timed searches include the model.
"""

import asyncio
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from application.ports import Embedder, QueryEmbedder
from application.ports.records import EmbeddingSpace, Vector
from domain.hashing import content_hash

__all__ = ["CachedEmbedder", "DiskEmbeddingCache"]

_HASH_BYTES = 64


class DiskEmbeddingCache:
    """All vectors of one model in memory, appended to disk as they are made."""

    def __init__(self, directory: Path, space: EmbeddingSpace) -> None:
        self.space = space
        directory.mkdir(parents=True, exist_ok=True)
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in space.model)
        self.path = directory / f"{safe}-{space.dimension}.bin"
        self._record = _HASH_BYTES + 4 * space.dimension
        self._vectors: dict[str, np.ndarray] = {}
        self._load()

    def _load(self) -> None:
        if self._read(self.path):  # a torn tail from a killed run: drop it
            with self.path.open("r+b") as handle:
                handle.truncate(self.path.stat().st_size // self._record * self._record)

    def read_also(self, directory: Path) -> None:
        """Answer from another cache directory's vectors of the same model too, without
        writing to it (another run may be appending there)."""
        self._read(directory / self.path.name)

    def _read(self, path: Path) -> bool:
        """Load the whole records of ``path``; whether a torn tail followed them."""
        if not path.exists():
            return False
        raw = path.read_bytes()
        whole = len(raw) - len(raw) % self._record
        for offset in range(0, whole, self._record):
            key = raw[offset : offset + _HASH_BYTES].decode("ascii")
            vec = np.frombuffer(
                raw, dtype="<f4", count=self.space.dimension, offset=offset + _HASH_BYTES
            )
            self._vectors[key] = vec
        return whole != len(raw)

    def __len__(self) -> int:
        return len(self._vectors)

    def __contains__(self, key: str) -> bool:
        return key in self._vectors

    def get(self, key: str) -> np.ndarray | None:
        return self._vectors.get(key)

    def put_many(self, items: Iterable[tuple[str, Sequence[float]]]) -> None:
        chunks: list[bytes] = []
        for key, vector in items:
            if key in self._vectors:
                continue
            arr = np.asarray(vector, dtype="<f4")
            self._vectors[key] = arr
            chunks.append(key.encode("ascii") + arr.tobytes())
        if chunks:
            with self.path.open("ab") as handle:
                handle.write(b"".join(chunks))


class CachedEmbedder:
    """The ``Embedder`` port over a real model, answering known texts from the disk cache."""

    def __init__(self, inner: Embedder, cache: DiskEmbeddingCache) -> None:
        self._inner = inner
        self._cache = cache
        #: when False every call goes to the model (timed query embedding)
        self.serve_from_cache = True
        self.model_calls = 0
        self.model_texts = 0

    @property
    def space(self) -> EmbeddingSpace:
        return self._inner.space

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        if not self.serve_from_cache:
            self.model_calls += 1
            self.model_texts += len(texts)
            return await self._inner.embed(texts)
        keys = [content_hash(t) for t in texts]
        missing = {k: t for k, t in zip(keys, texts, strict=True) if k not in self._cache}
        if missing:
            self.model_calls += 1
            self.model_texts += len(missing)
            fresh = await self._inner.embed(list(missing.values()))
            self._cache.put_many(zip(missing.keys(), fresh, strict=True))
        out: list[Vector] = []
        for key in keys:
            vec = self._cache.get(key)
            assert vec is not None
            out.append(vec.tolist())
        return out

    async def embed_queries(self, texts: Sequence[str]) -> list[Vector]:
        """The model's own query run, live and never cached: its vectors are not the
        documents' (the offline MiniLM runs queries in int8 arithmetic). A model
        without one embeds queries as documents, through the cache as before."""
        if not isinstance(self._inner, QueryEmbedder):
            return await self.embed(texts)
        self.model_calls += 1
        self.model_texts += len(texts)
        return await self._inner.embed_queries(texts)

    async def prefill(self, texts: Sequence[str], batch: int = 512) -> int:
        """Embed the texts the cache lacks, in large batches; returns how many were new."""
        todo = list(dict.fromkeys(t for t in texts if content_hash(t) not in self._cache))
        for start in range(0, len(todo), batch):
            await self.embed(todo[start : start + batch])
            await asyncio.sleep(0)
        return len(todo)
