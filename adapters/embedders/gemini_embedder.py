"""Embeddings from the Gemini Developer API, through the official ``google-genai`` SDK.

For deployments that prefer Google's hosted embedding models. Texts go up in
``batchEmbedContents`` calls of at most 100 (the API's per-call limit), each
text as its own ``Content``: a bare list of strings would be merged into one
multi-part content by multimodal models such as ``gemini-embedding-2``,
giving one vector for the whole batch. Vectors are re-normalised to unit
length; ``gemini-embedding-001`` returns unnormalised vectors below 3072
dimensions. ``base_url`` overrides the endpoint (a proxy, or a local fake in
tests).

Failures become ``UpstreamError(embedder_failed)`` whose detail names the HTTP
status and error type only: the SDK's messages carry the server's full error
body, which may echo the request.
"""

import math
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from application.records import EmbeddingSpace, Vector
from domain.errors import UpstreamError
from domain.reasons import ReasonCode

if TYPE_CHECKING:
    from google.genai import Client
    from google.genai.types import EmbedContentResponse

__all__ = ["GeminiEmbedder"]

DEFAULT_MODEL = "gemini-embedding-001"
DEFAULT_DIMENSIONS = 768
#: batchEmbedContents accepts at most 100 requests per call
MAX_BATCH = 100
#: statuses are identifiers like "UNAUTHENTICATED"; anything else is not quoted
_SAFE_STATUS = re.compile(r"[A-Za-z0-9_.\-]{1,64}")


def _failure(detail: str) -> UpstreamError:
    return UpstreamError(ReasonCode.EMBEDDER_FAILED, f"gemini embed_content: {detail}")


def _describe(exc: Exception) -> str:
    """Status code, status name and error type of an SDK exception; never its message."""
    from google.genai import errors

    name = type(exc).__name__
    if isinstance(exc, errors.APIError):
        status = exc.status if isinstance(exc.status, str) else None
        safe = status if status and _SAFE_STATUS.fullmatch(status) else None
        return f"HTTP {exc.code} {name}" + (f" ({safe})" if safe else "")
    return name


def _unit(values: Sequence[float] | None, dimension: int) -> Vector:
    if values is None or len(values) != dimension:
        got = 0 if values is None else len(values)
        raise _failure(f"expected {dimension} dimensions, got {got}")
    norm = math.sqrt(sum(x * x for x in values))
    if not math.isfinite(norm) or norm == 0.0:
        raise _failure("the server returned a zero or non-finite vector")
    return [float(x) / norm for x in values]


class GeminiEmbedder:
    """Creates its SDK client on first use, so constructing one is free."""

    def __init__(
        self,
        *,
        api_key: str,
        model: str = DEFAULT_MODEL,
        output_dimensionality: int = DEFAULT_DIMENSIONS,
        base_url: str | None = None,
        timeout: float = 30.0,
        max_retries: int = 2,
        batch_size: int = MAX_BATCH,
    ) -> None:
        if not model:
            raise ValueError("model must not be empty")
        if output_dimensionality < 1:
            raise ValueError("output_dimensionality must be >= 1")
        if not 1 <= batch_size <= MAX_BATCH:
            raise ValueError(f"batch_size must be between 1 and {MAX_BATCH}")
        if timeout <= 0 or max_retries < 0:
            raise ValueError("timeout must be > 0 and max_retries >= 0")
        self._api_key = api_key
        self._model = model
        self._dimensions = output_dimensionality
        self._base_url = base_url
        self._timeout = timeout
        self._max_retries = max_retries
        self._batch_size = batch_size
        self._client: Client | None = None

    def __repr__(self) -> str:  # never show the key
        return f"GeminiEmbedder(model={self._model!r}, dimensions={self._dimensions})"

    @property
    def space(self) -> EmbeddingSpace:
        return EmbeddingSpace(model=self._model, dimension=self._dimensions)

    def _get_client(self) -> "Client":
        if self._client is None:
            from google import genai

            retry = (
                genai.types.HttpRetryOptions(attempts=self._max_retries + 1)
                if self._max_retries
                else None
            )
            self._client = genai.Client(
                api_key=self._api_key,
                vertexai=False,
                http_options=genai.types.HttpOptions(
                    base_url=self._base_url,
                    timeout=max(1, round(self._timeout * 1000)),  # milliseconds
                    retry_options=retry,
                ),
            )
        return self._client

    async def _embed_batch(self, batch: list[str]) -> list[Vector]:
        from google.genai import types

        client = self._get_client()
        try:
            response = await client.aio.models.embed_content(
                model=self._model,
                contents=[types.Content(parts=[types.Part(text=text)]) for text in batch],
                config=types.EmbedContentConfig(output_dimensionality=self._dimensions),
            )
        except Exception as exc:
            # APIError for HTTP failures; httpx/OS errors for transport ones
            raise _failure(_describe(exc)) from None
        return self._vectors(response, len(batch))

    def _vectors(self, response: "EmbedContentResponse", expected: int) -> list[Vector]:
        embeddings = response.embeddings or []
        if len(embeddings) != expected:
            raise _failure(f"expected {expected} vectors, got {len(embeddings)}")
        return [_unit(item.values, self._dimensions) for item in embeddings]

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        vectors: list[Vector] = []
        for start in range(0, len(texts), self._batch_size):
            vectors.extend(await self._embed_batch(list(texts[start : start + self._batch_size])))
        return vectors

    async def aclose(self) -> None:
        """Close the SDK's HTTP clients, if they were opened."""
        if self._client is not None:
            client, self._client = self._client, None
            client.close()
            await client.aio.aclose()
