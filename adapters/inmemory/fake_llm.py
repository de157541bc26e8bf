"""A scriptable language model for tests: no network, no weights, same port.

A test scripts the answers (a list consumed in order, or a function of the
request) and reads back every request it was sent; that is how the synthesis
gate shows what an LLM drafter was given and what happens when it writes an
uncited sentence. Unscripted, it answers a minimal value of the requested
schema (or echoes a short acknowledgement), which is what the LLM contract
needs. ``fail_with`` makes every call fail as a provider would.
"""

from collections.abc import Callable, Sequence
from typing import Any

import msgspec

from application.ports.llm import JsonSchema, LLMRequest, LLMResponse, decode_json
from domain.errors import UpstreamError
from domain.reasons import ReasonCode

__all__ = ["ScriptedLLM", "example_for_schema"]

Responder = Callable[[LLMRequest], str]


def example_for_schema(schema: JsonSchema) -> Any:
    """A small value that matches ``schema`` (objects get their required fields)."""
    if "enum" in schema:
        return schema["enum"][0]
    if "anyOf" in schema:
        return example_for_schema(schema["anyOf"][0])
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = kind[0]
    if kind == "object":
        properties = schema.get("properties", {})
        return {
            name: example_for_schema(properties.get(name, {}))
            for name in schema.get("required", list(properties))
        }
    if kind == "array":
        return [example_for_schema(schema.get("items", {}))] if schema.get("minItems") else []
    if kind == "string":
        return "ok"
    if kind in ("integer", "number"):
        return 0
    if kind == "boolean":
        return False
    return None


def _default(request: LLMRequest) -> str:
    if request.schema is not None:
        return msgspec.json.encode(example_for_schema(request.schema)).decode()
    return "ok"


class ScriptedLLM:
    def __init__(
        self,
        answers: Sequence[str] | Responder | None = None,
        *,
        model: str = "scripted",
        fail_with: ReasonCode | None = None,
    ) -> None:
        self._answers = list(answers) if isinstance(answers, Sequence) else None
        self._responder = answers if callable(answers) else _default
        self._model = model
        self._fail_with = fail_with
        #: every request received, in order
        self.requests: list[LLMRequest] = []

    @property
    def model(self) -> str:
        return self._model

    async def generate(self, request: LLMRequest) -> LLMResponse:
        self.requests.append(request)
        if self._fail_with is not None:
            raise UpstreamError(self._fail_with, f"{self._model}: scripted failure")
        if self._answers is not None:
            if not self._answers:
                raise UpstreamError(ReasonCode.LLM_FAILED, f"{self._model}: no answer scripted")
            text = self._answers.pop(0)
        else:
            text = self._responder(request)
        data = decode_json(text, self._model) if request.schema is not None else None
        return LLMResponse(text=text, model=self._model, data=data)
