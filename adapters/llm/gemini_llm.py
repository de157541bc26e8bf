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

from adapters.embedders.remote import SAFE_IDENTIFIER
from application.llm import LLMRequest, LLMResponse, decode_json
from domain.errors import UpstreamError
from domain.reasons import ReasonCode

if TYPE_CHECKING:
    from google.genai import Client

__all__ = ["DEFAULT_MODEL", "GeminiLLM"]

DEFAULT_MODEL = "gemini-2.5-flash"


def _describe(exc: Exception) -> str:
    from google.genai import errors

    name = type(exc).__name__
    if isinstance(exc, errors.APIError):
        status = exc.status if isinstance(exc.status, str) else None
        safe = status if status and SAFE_IDENTIFIER.fullmatch(status) else None
        return f"HTTP {exc.code} {name}" + (f" ({safe})" if safe else "")
    return name


class GeminiLLM:
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
        if not model:
            raise ValueError("model must not be empty")
        if timeout <= 0 or max_retries < 0:
            raise ValueError("timeout must be > 0 and max_retries >= 0")
        self._api_key = api_key
        self._model = model
        self._base_url = base_url
        self._timeout = timeout
        self._max_retries = max_retries
        self._client: Client | None = None

    def __repr__(self) -> str:  # never show the key
        return f"{type(self).__name__}(model={self._model!r})"

    @property
    def model(self) -> str:
        return self._model

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
            raise UpstreamError(
                ReasonCode.LLM_FAILED, f"{self.provider}: {_describe(exc)}"
            ) from None
        if not text:
            raise UpstreamError(ReasonCode.LLM_BAD_OUTPUT, f"{self.provider}: an empty answer")
        data = decode_json(text, self.provider) if request.schema is not None else None
        return LLMResponse(text=text, model=response.model_version or self._model, data=data)

    async def aclose(self) -> None:
        """Close the SDK's HTTP clients, if they were opened."""
        if self._client is not None:
            client, self._client = self._client, None
            client.close()
            await client.aio.aclose()
