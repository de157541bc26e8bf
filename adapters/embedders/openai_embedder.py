"""Embeddings from the OpenAI API (or any server that speaks its ``/embeddings`` route).

For deployments that prefer a hosted model to the offline MiniLM default. Uses
the official ``openai`` SDK's ``AsyncOpenAI``; ``base_url`` points it at Azure,
a proxy or a compatible local server. Texts go up in batches of at most 256,
vectors come back re-normalised to unit length (the store compares by dot
product and a compatible server may not normalise).

Failures become ``UpstreamError(embedder_failed)`` whose detail names the HTTP
status and error type only: the SDK's own messages can quote the API key
("Incorrect API key provided: sk-...") or the server's echo of the input.
"""

import math
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from application.records import EmbeddingSpace, Vector
from domain.errors import UpstreamError
from domain.reasons import ReasonCode

if TYPE_CHECKING:
    from openai import AsyncOpenAI
    from openai.types import CreateEmbeddingResponse

__all__ = ["OpenAIEmbedder"]

DEFAULT_MODEL = "text-embedding-3-small"
DEFAULT_DIMENSIONS = 1536
#: the API takes up to 2048 inputs a call; smaller calls keep each request well
#: under its 300k-token cap and a timeout cheap to retry
MAX_BATCH = 256
#: error codes are identifiers like "invalid_api_key"; anything else is not quoted
_SAFE_CODE = re.compile(r"[A-Za-z0-9_.\-]{1,64}")


def _failure(detail: str) -> UpstreamError:
    return UpstreamError(ReasonCode.EMBEDDER_FAILED, f"openai embeddings: {detail}")


def _describe(exc: Exception) -> str:
    """Status, error type and error code of an SDK exception; never its message."""
    import openai

    name = type(exc).__name__
    if isinstance(exc, openai.APIStatusError):
        code = exc.code if isinstance(exc.code, str) and _SAFE_CODE.fullmatch(exc.code) else None
        return f"HTTP {exc.status_code} {name}" + (f" ({code})" if code else "")
    return name


def _unit(vector: Sequence[float], dimension: int) -> Vector:
    if len(vector) != dimension:
        raise _failure(f"expected {dimension} dimensions, got {len(vector)}")
    norm = math.sqrt(sum(x * x for x in vector))
    if not math.isfinite(norm) or norm == 0.0:
        raise _failure("the server returned a zero or non-finite vector")
    return [float(x) / norm for x in vector]


class OpenAIEmbedder:
    """Creates its HTTP client on first use, so constructing one is free."""

    def __init__(
        self,
        *,
        api_key: str,
        model: str = DEFAULT_MODEL,
        dimensions: int = DEFAULT_DIMENSIONS,
        base_url: str | None = None,
        timeout: float = 30.0,
        max_retries: int = 2,
        batch_size: int = MAX_BATCH,
    ) -> None:
        if not model:
            raise ValueError("model must not be empty")
        if dimensions < 1:
            raise ValueError("dimensions must be >= 1")
        if not 1 <= batch_size <= MAX_BATCH:
            raise ValueError(f"batch_size must be between 1 and {MAX_BATCH}")
        if timeout <= 0 or max_retries < 0:
            raise ValueError("timeout must be > 0 and max_retries >= 0")
        self._api_key = api_key
        self._model = model
        self._dimensions = dimensions
        self._base_url = base_url
        self._timeout = timeout
        self._max_retries = max_retries
        self._batch_size = batch_size
        self._client: AsyncOpenAI | None = None

    def __repr__(self) -> str:  # never show the key
        return f"OpenAIEmbedder(model={self._model!r}, dimensions={self._dimensions})"

    @property
    def space(self) -> EmbeddingSpace:
        return EmbeddingSpace(model=self._model, dimension=self._dimensions)

    def _get_client(self) -> "AsyncOpenAI":
        if self._client is None:
            from openai import AsyncOpenAI

            self._client = AsyncOpenAI(
                api_key=self._api_key,
                base_url=self._base_url,
                timeout=self._timeout,
                max_retries=self._max_retries,
            )
        return self._client

    async def _embed_batch(self, batch: list[str]) -> list[Vector]:
        import openai

        client = self._get_client()
        try:
            response = await client.embeddings.create(
                input=batch,
                model=self._model,
                dimensions=self._dimensions,
                encoding_format="float",
            )
        except openai.OpenAIError as exc:
            raise _failure(_describe(exc)) from None
        return self._vectors(response, len(batch))

    def _vectors(self, response: "CreateEmbeddingResponse", expected: int) -> list[Vector]:
        try:
            data = sorted(response.data, key=lambda item: item.index)
            if [item.index for item in data] != list(range(expected)):
                raise _failure(f"expected {expected} vectors, got {len(data)}")
            return [_unit(item.embedding, self._dimensions) for item in data]
        except (AttributeError, TypeError, ValueError) as exc:
            raise _failure(f"malformed response ({type(exc).__name__})") from None

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        vectors: list[Vector] = []
        for start in range(0, len(texts), self._batch_size):
            vectors.extend(await self._embed_batch(list(texts[start : start + self._batch_size])))
        return vectors

    async def aclose(self) -> None:
        """Close the HTTP client, if one was opened."""
        if self._client is not None:
            client, self._client = self._client, None
            await client.close()
