"""A deterministic bag-of-words embedder: the reference fake for tests.

Each analysed word is hashed into one of ``dimension`` buckets with a sign,
so texts that share words get close vectors without any model. Fast and
stable across machines, which the real models are not guaranteed to be.
"""

import hashlib
import math
from collections.abc import Sequence

from application.ports.records import EmbeddingSpace, Vector
from domain.words import word_tokens

__all__ = ["HashingEmbedder"]


class HashingEmbedder:
    def __init__(self, dimension: int = 64, model: str = "hashing-bow") -> None:
        self._space = EmbeddingSpace(model=f"{model}-{dimension}", dimension=dimension)
        self.calls = 0
        self.texts_embedded = 0

    @property
    def space(self) -> EmbeddingSpace:
        return self._space

    def _vector(self, text: str) -> Vector:
        vector = [0.0] * self._space.dimension
        for word in word_tokens(text.lower()):
            digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
            bucket = int.from_bytes(digest[:4], "big") % self._space.dimension
            vector[bucket] += 1.0 if digest[4] & 1 else -1.0
        norm = math.sqrt(sum(v * v for v in vector))
        if norm == 0:
            vector[0], norm = 1.0, 1.0
        return [v / norm for v in vector]

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        self.calls += 1
        self.texts_embedded += len(texts)
        return [self._vector(t) for t in texts]
