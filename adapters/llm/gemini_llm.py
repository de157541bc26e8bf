"""Text generation through the official ``google-genai`` SDK (the Gemini Developer API).

Structured output sends the schema as ``response_json_schema`` with the JSON
MIME type, which takes plain JSON Schema (``response_schema`` takes Google's
OpenAPI subset). ``base_url`` overrides the endpoint (a proxy, or a local
fake in tests).

Failures become ``UpstreamError(llm_failed)`` whose detail names the HTTP
status and error type only: the SDK's messages carry the server's error body,
which may echo the prompt.
"""

from typing import TYPE_CHECKING

from adapters.llm.remote import RemoteLLM
from adapters.sdk_clients import describe_gemini_error, gemini_client
from application.ports.llm import LLMRequest, LLMResponse

if TYPE_CHECKING:
    from google.genai import Client

__all__ = ["DEFAULT_MODEL", "GeminiLLM"]

DEFAULT_MODEL = "gemini-2.5-flash"


class GeminiLLM(RemoteLLM):
    """Creates its SDK client on first use, so constructing one is free."""

    provider = "gemini generate_content"

    def __init__(
        self,
        *,
        api_key: str,
        model: str = DEFAULT_MODEL,
        base_url: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 2,
    ) -> None:
        super().__init__(
            api_key=api_key,
            model=model,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
        )
        self._client: Client | None = None

    def _get_client(self) -> "Client":
        if self._client is None:
            self._client = gemini_client(
                api_key=self._api_key,
                base_url=self._base_url,
                timeout=self._timeout,
                max_retries=self._max_retries,
            )
        return self._client

    async def generate(self, request: LLMRequest) -> LLMResponse:
        from google.genai import types

        config = types.GenerateContentConfig(
            system_instruction=request.system or None,
            max_output_tokens=request.max_tokens,
            temperature=request.temperature,
            response_mime_type="application/json" if request.schema is not None else None,
            response_json_schema=request.schema,
        )
        try:
            response = await self._get_client().aio.models.generate_content(
                model=self._model, contents=request.prompt, config=config
            )
            text = response.text
        except Exception as exc:
            # APIError for HTTP failures; httpx/OS errors for transport ones
            raise self._failure(describe_gemini_error(exc)) from None
        return self._answer(request, text, response.model_version)

    async def aclose(self) -> None:
        """Close the SDK's HTTP clients, if they were opened."""
        if self._client is not None:
            client, self._client = self._client, None
            client.close()
            await client.aio.aclose()
