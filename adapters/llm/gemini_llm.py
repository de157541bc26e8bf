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
from adapters.sdk_clients import GeminiClient, describe_gemini_error
from application.ports.llm import LLMRequest, LLMResponse

if TYPE_CHECKING:
    pass

__all__ = ["DEFAULT_MODEL", "GeminiLLM"]

DEFAULT_MODEL = "gemini-2.5-flash"


class GeminiLLM(GeminiClient, RemoteLLM):
    provider = "gemini generate_content"
    default_model = DEFAULT_MODEL

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
