"""What every hosted-model LLM adapter shares: options, a key never shown, answer checks.

Hosted APIs differ in their SDK calls only; the rules around them are the
same (as for the hosted embedders in ``adapters/embedders/remote.py``):
validate options up front, never show the API key, and trust no answer until
it is non-empty and, when a schema was asked for, decodes as JSON. Failure
details name the provider and an HTTP status or error type, never a message
(SDK messages can quote the key or echo the prompt).
"""

from typing import Any

from application.ports.llm import LLMRequest, LLMResponse, decode_json
from domain.errors import UpstreamError
from domain.reasons import ReasonCode

__all__ = ["RemoteLLM"]


class RemoteLLM:
    """Base of the hosted LLM adapters; subclasses name their default model, implement
    ``generate`` and take their SDK's client from ``adapters.sdk_clients``."""

    #: e.g. "openai chat"; prefixes every failure detail
    provider = "remote llm"
    default_model = ""

    def __init__(
        self,
        *,
        api_key: str,
        model: str | None = None,
        base_url: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 2,
    ) -> None:
        """``model`` defaults to the class's own."""
        model = self.default_model if model is None else model
        if not model:
            raise ValueError("model must not be empty")
        if timeout <= 0 or max_retries < 0:
            raise ValueError("timeout must be > 0 and max_retries >= 0")
        self._api_key = api_key
        self._model = model
        self._base_url = base_url
        self._timeout = timeout
        self._max_retries = max_retries

    def __repr__(self) -> str:  # never show the key
        return f"{type(self).__name__}(model={self._model!r})"

    @property
    def model(self) -> str:
        return self._model

    def _failure(self, description: str) -> UpstreamError:
        """The SDK call failed; ``description`` is a status and an error type only."""
        return UpstreamError(ReasonCode.LLM_FAILED, f"{self.provider}: {description}")

    def _answer(self, request: LLMRequest, text: str | None, model: Any) -> LLMResponse:
        """The checked answer: non-empty, and decoded when the request named a schema."""
        if not text:
            raise UpstreamError(ReasonCode.LLM_BAD_OUTPUT, f"{self.provider}: an empty answer")
        data = decode_json(text, self.provider) if request.schema is not None else None
        return LLMResponse(text=text, model=model or self._model, data=data)
