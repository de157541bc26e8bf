"""What every hosted-model embedder shares: options, batching and vector checks.

Hosted APIs differ in their SDK calls only; the rules around them are the
same: validate options up front, never show the API key, send bounded
batches, and trust no vector until it has the right dimension and a finite
norm (a compatible server may not normalise). The SDK's client is opened on
first use and closed once (``adapters.sdk_clients``).
"""

import math
from collections.abc import Sequence

from application.ports.records import EmbeddingSpace, Vector
from domain.errors import UpstreamError
from domain.reasons import ReasonCode

__all__ = ["RemoteEmbedder"]


class RemoteEmbedder:
    """Base of the hosted embedders; subclasses name their defaults, implement
    ``_embed_batch`` and take their SDK's client from ``adapters.sdk_clients``."""

    #: e.g. "openai embeddings"; prefixes every failure detail
    provider = "remote embeddings"
    #: the most texts one call may carry, and the default batch size
    max_batch = 1
    default_model = ""
    default_dimensions = 0

    def __init__(
        self,
        *,
        api_key: str,
        model: str | None = None,
        dimensions: int | None = None,
        base_url: str | None = None,
        timeout: float = 30.0,
        max_retries: int = 2,
        batch_size: int | None = None,
    ) -> None:
        """``model``, ``dimensions`` and ``batch_size`` default to the class's own."""
        model = self.default_model if model is None else model
        dimensions = self.default_dimensions if dimensions is None else dimensions
        batch_size = self.max_batch if batch_size is None else batch_size
        if not model:
            raise ValueError("model must not be empty")
        if dimensions < 1:
            raise ValueError("dimensions must be >= 1")
        if not 1 <= batch_size <= self.max_batch:
            raise ValueError(f"batch_size must be between 1 and {self.max_batch}")
        if timeout <= 0 or max_retries < 0:
            raise ValueError("timeout must be > 0 and max_retries >= 0")
        self._api_key = api_key
        self._model = model
        self._dimensions = dimensions
        self._base_url = base_url
        self._timeout = timeout
        self._max_retries = max_retries
        self._batch_size = batch_size

    def __repr__(self) -> str:  # never show the key
        return f"{type(self).__name__}(model={self._model!r}, dimensions={self._dimensions})"

    @property
    def space(self) -> EmbeddingSpace:
        return EmbeddingSpace(model=self._model, dimension=self._dimensions)

    def _failure(self, detail: str) -> UpstreamError:
        return UpstreamError(ReasonCode.EMBEDDER_FAILED, f"{self.provider}: {detail}")

    def _unit(self, values: Sequence[float] | None) -> Vector:
        if values is None or len(values) != self._dimensions:
            got = 0 if values is None else len(values)
            raise self._failure(f"expected {self._dimensions} dimensions, got {got}")
        norm = math.sqrt(sum(x * x for x in values))
        if not math.isfinite(norm) or norm == 0.0:
            raise self._failure("the server returned a zero or non-finite vector")
        return [float(x) / norm for x in values]

    async def _embed_batch(self, batch: list[str]) -> list[Vector]:
        raise NotImplementedError

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        vectors: list[Vector] = []
        for start in range(0, len(texts), self._batch_size):
            vectors.extend(await self._embed_batch(list(texts[start : start + self._batch_size])))
        return vectors
