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

from typing import TYPE_CHECKING

from adapters.embedders.remote import RemoteEmbedder
from adapters.sdk_clients import GeminiClient, describe_gemini_error
from application.ports.records import Vector

if TYPE_CHECKING:
    from google.genai.types import EmbedContentResponse

__all__ = ["GeminiEmbedder"]

DEFAULT_MODEL = "gemini-embedding-001"
DEFAULT_DIMENSIONS = 768
#: batchEmbedContents accepts at most 100 requests per call
MAX_BATCH = 100


class GeminiEmbedder(GeminiClient, RemoteEmbedder):
    """Options as ``RemoteEmbedder``'s, with ``output_dimensionality`` (the API's name)
    for ``dimensions``."""

    provider = "gemini embed_content"
    max_batch = MAX_BATCH
    default_model = DEFAULT_MODEL
    default_dimensions = DEFAULT_DIMENSIONS

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
        super().__init__(
            api_key=api_key,
            model=model,
            dimensions=output_dimensionality,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            batch_size=batch_size,
        )

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
            raise self._failure(describe_gemini_error(exc)) from None
        return self._vectors(response, len(batch))

    def _vectors(self, response: "EmbedContentResponse", expected: int) -> list[Vector]:
        embeddings = response.embeddings or []
        if len(embeddings) != expected:
            raise self._failure(f"expected {expected} vectors, got {len(embeddings)}")
        return [self._unit(item.values) for item in embeddings]
