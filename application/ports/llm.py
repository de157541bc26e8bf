"""The LLM port: text generation, optionally constrained to a JSON schema.

One port serves every use of a language model (the synthesis drafter, a
future listwise reranker), so it knows nothing about either: a request is a
system prompt, a user prompt and, for structured output, a JSON schema; the
answer is the text and, when a schema was given, the decoded JSON. No
default path needs an LLM: the composition root builds one only when
``TESSERA_LLM`` names a provider.

Failures are ``UpstreamError`` with ``llm_failed`` (the call failed) or
``llm_bad_output`` (an answer that is not the JSON asked for); details name
the provider, status and error type, never the prompt or the answer.
"""

from typing import Any, Protocol, TypeVar, runtime_checkable

import msgspec

from domain.errors import UpstreamError
from domain.reasons import ReasonCode

__all__ = [
    "JsonSchema",
    "LLMRequest",
    "LLMResponse",
    "LanguageModel",
    "decode_json",
    "generate_structured",
    "schema_of",
]

T = TypeVar("T")

#: a JSON schema as a plain mapping (what every provider SDK accepts)
JsonSchema = dict[str, Any]


class LLMRequest(msgspec.Struct, frozen=True, kw_only=True):
    prompt: str
    system: str = ""
    #: when set, the answer must be one JSON value matching it
    schema: JsonSchema | None = None
    max_tokens: int = 1024
    #: 0 asks for the most deterministic answer the provider gives
    temperature: float = 0.0

    def __post_init__(self) -> None:
        if not self.prompt.strip():
            raise ValueError("prompt must not be empty")
        if self.max_tokens < 1:
            raise ValueError("max_tokens must be >= 1")
        if not 0.0 <= self.temperature <= 2.0:
            raise ValueError("temperature must be between 0 and 2")


class LLMResponse(msgspec.Struct, frozen=True, kw_only=True):
    text: str
    model: str
    #: the decoded JSON when the request carried a schema, else None
    data: Any = None


@runtime_checkable
class LanguageModel(Protocol):
    @property
    def model(self) -> str:
        """The model's name, recorded with everything it wrote."""
        ...

    async def generate(self, request: LLMRequest) -> LLMResponse:
        """One answer; raises UpstreamError(llm_failed | llm_bad_output) on failure."""
        ...


def schema_of(kind: type[Any]) -> JsonSchema:
    """The JSON schema of a msgspec type, inlined (providers do not all follow $ref)."""
    schema: JsonSchema = msgspec.json.schema(kind)
    defs = schema.pop("$defs", {})

    def inline(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/"):
                return inline(defs[ref.removeprefix("#/$defs/")])
            return {k: inline(v) for k, v in node.items()}
        if isinstance(node, list):
            return [inline(v) for v in node]
        return node

    inlined: JsonSchema = inline(schema)
    return inlined


def decode_json(text: str, provider: str) -> Any:
    """The JSON value of an answer; a provider's answer that is not JSON is llm_bad_output."""
    cleaned = text.strip()
    if cleaned.startswith("```"):  # some local servers fence JSON despite the schema
        cleaned = cleaned.strip("`").removeprefix("json").strip()
    try:
        return msgspec.json.decode(cleaned)
    except msgspec.DecodeError:
        raise UpstreamError(
            ReasonCode.LLM_BAD_OUTPUT, f"{provider}: the answer is not valid JSON"
        ) from None


async def generate_structured(
    llm: LanguageModel, kind: type[T], prompt: str, *, system: str = "", max_tokens: int = 2048
) -> T:
    """Ask for one value of the msgspec type ``kind`` and decode the answer into it."""
    response = await llm.generate(
        LLMRequest(prompt=prompt, system=system, schema=schema_of(kind), max_tokens=max_tokens)
    )
    try:
        return msgspec.convert(response.data, kind)
    except msgspec.ValidationError:
        raise UpstreamError(
            ReasonCode.LLM_BAD_OUTPUT, f"{llm.model}: the answer does not match the schema"
        ) from None
