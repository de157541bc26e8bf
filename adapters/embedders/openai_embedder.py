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

from typing import TYPE_CHECKING

from adapters.embedders.remote import RemoteEmbedder
from adapters.sdk_clients import OpenAIClient, describe_openai_error
from application.ports.records import Vector

if TYPE_CHECKING:
    from openai.types import CreateEmbeddingResponse

__all__ = ["OpenAIEmbedder"]

DEFAULT_MODEL = "text-embedding-3-small"
DEFAULT_DIMENSIONS = 1536
#: the API takes up to 2048 inputs a call; smaller calls keep each request well
#: under its 300k-token cap and a timeout cheap to retry
MAX_BATCH = 256


class OpenAIEmbedder(OpenAIClient, RemoteEmbedder):
    """Options: ``api_key``, ``model``, ``dimensions``, ``base_url``, ``timeout`` (seconds),
    ``max_retries`` and ``batch_size`` (see ``RemoteEmbedder``)."""

    provider = "openai embeddings"
    max_batch = MAX_BATCH
    default_model = DEFAULT_MODEL
    default_dimensions = DEFAULT_DIMENSIONS

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
            raise self._failure(describe_openai_error(exc)) from None
        return self._vectors(response, len(batch))

    def _vectors(self, response: "CreateEmbeddingResponse", expected: int) -> list[Vector]:
        try:
            data = sorted(response.data, key=lambda item: item.index)
            if [item.index for item in data] != list(range(expected)):
                raise self._failure(f"expected {expected} vectors, got {len(data)}")
            return [self._unit(item.embedding) for item in data]
        except (AttributeError, TypeError, ValueError) as exc:
            raise self._failure(f"malformed response ({type(exc).__name__})") from None
