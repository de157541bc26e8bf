"""Text generation through the official ``openai`` SDK: OpenAI, or any compatible server.

``OpenAILLM`` calls the Chat Completions route, which OpenAI, Azure and the
local servers offline users run (llama.cpp's ``llama-server``, Ollama, vLLM)
all speak; ``OpenAICompatibleLLM`` is the same adapter pointed at a base URL
with the API key optional, since local servers rarely check one. Structured
output uses ``response_format={"type": "json_schema", ...}``; servers that
only know JSON mode can be given ``json_mode="json_object"``.

Failures become ``UpstreamError(llm_failed)`` whose detail names the HTTP
status and error type only: SDK messages can quote the key or echo the prompt.
"""

from typing import TYPE_CHECKING, Any, Literal

from adapters.llm.remote import RemoteLLM
from adapters.sdk_clients import OpenAIClient, describe_openai_error
from application.ports.llm import LLMRequest, LLMResponse

if TYPE_CHECKING:
    pass

__all__ = ["DEFAULT_MODEL", "OpenAICompatibleLLM", "OpenAILLM"]

DEFAULT_MODEL = "gpt-4.1-mini"


class OpenAILLM(OpenAIClient, RemoteLLM):
    provider = "openai chat"
    default_model = DEFAULT_MODEL

    def __init__(
        self,
        *,
        api_key: str,
        model: str | None = None,
        base_url: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 2,
        json_mode: Literal["json_schema", "json_object"] = "json_schema",
    ) -> None:
        """``json_mode``: how a schema is asked for ("json_object" for servers that lack
        structured outputs); the rest as ``RemoteLLM``."""
        super().__init__(
            api_key=api_key,
            model=model,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
        )
        self._json_mode = json_mode

    def _response_format(self, request: LLMRequest) -> dict[str, Any] | None:
        if request.schema is None:
            return None
        if self._json_mode == "json_object":
            return {"type": "json_object"}
        return {
            "type": "json_schema",
            "json_schema": {"name": "answer", "schema": request.schema, "strict": False},
        }

    async def generate(self, request: LLMRequest) -> LLMResponse:
        import openai

        messages: list[Any] = []
        if request.system:
            messages.append({"role": "system", "content": request.system})
        messages.append({"role": "user", "content": request.prompt})
        extra: dict[str, Any] = {}
        response_format = self._response_format(request)
        if response_format is not None:
            extra["response_format"] = response_format
        try:
            completion = await self._get_client().chat.completions.create(
                model=self._model,
                messages=messages,
                max_tokens=request.max_tokens,
                temperature=request.temperature,
                **extra,
            )
        except openai.OpenAIError as exc:
            raise self._failure(describe_openai_error(exc)) from None
        try:
            text = completion.choices[0].message.content
        except (AttributeError, IndexError, TypeError):
            text = None
        return self._answer(request, text, completion.model)


class OpenAICompatibleLLM(OpenAILLM):
    """A local or self-hosted server (llama.cpp, Ollama, vLLM) that speaks Chat Completions."""

    provider = "openai-compatible chat"

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 120.0,
        max_retries: int = 1,
        json_mode: Literal["json_schema", "json_object"] = "json_schema",
    ) -> None:
        if not base_url:
            raise ValueError("an OpenAI-compatible server needs its base URL")
        super().__init__(
            # the SDK insists on a key; local servers ignore it
            api_key=api_key or "not-needed",
            model=model,
            base_url=base_url,
            timeout=timeout,
            max_retries=max_retries,
            json_mode=json_mode,
        )
