"""The behaviour every ``LanguageModel`` adapter owes its callers, as a reusable pytest suite.

Callers (the synthesis drafter, a future reranker) rely on three promises:
a named model, an answer to every prompt, and, when a schema is given, one
JSON value that decodes into it; and on failures that are ``UpstreamError``
with an LLM reason whose detail never quotes the prompt (which holds memory
text) or the key. Meaning cannot be checked offline, so the suite pins the
shape, not the wording.

Usage: subclass it in a test module and provide two fixtures, ``llm`` (a
working model, real or behind a local fake server) and ``failing_llm`` (the
same adapter whose provider fails every call)::

    class TestMyLLM(LLMContract):
        @pytest.fixture
        def llm(self) -> LanguageModel: ...

        @pytest.fixture
        def failing_llm(self) -> LanguageModel: ...
"""

import msgspec

from application.ports.llm import LanguageModel, LLMRequest, generate_structured
from domain.errors import UpstreamError
from domain.reasons import ReasonCode

__all__ = ["LLMContract"]

SECRET = "the unreleased launch date is the 14th of March"

ANSWER_SCHEMA = {
    "type": "object",
    "properties": {
        "answer": {"type": "string"},
        "confidence": {"type": "number"},
        "sources": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["answer", "confidence", "sources"],
}


class Sentence(msgspec.Struct, frozen=True, kw_only=True):
    text: str
    citations: list[str]


class Draft(msgspec.Struct, frozen=True, kw_only=True):
    sentences: list[Sentence]


class LLMContract:
    """Subclass (as ``Test...``) and provide ``llm`` and ``failing_llm`` fixtures."""

    def test_names_its_model(self, llm: LanguageModel) -> None:
        assert isinstance(llm.model, str) and llm.model.strip()

    async def test_plain_prompt_gets_text(self, llm: LanguageModel) -> None:
        response = await llm.generate(LLMRequest(prompt="Say hello.", system="Be brief."))
        assert isinstance(response.text, str) and response.text.strip()
        assert response.data is None, "no schema, no decoded data"
        assert response.model

    async def test_schema_gets_one_matching_json_value(self, llm: LanguageModel) -> None:
        response = await llm.generate(
            LLMRequest(prompt="Answer with JSON.", schema=ANSWER_SCHEMA, max_tokens=200)
        )
        assert isinstance(response.data, dict)
        assert isinstance(response.data["answer"], str)
        assert isinstance(response.data["confidence"], int | float)
        assert isinstance(response.data["sources"], list)
        assert msgspec.json.decode(response.text.strip().strip("`").removeprefix("json")) == (
            response.data
        )

    async def test_structured_output_decodes_into_a_type(self, llm: LanguageModel) -> None:
        draft = await generate_structured(llm, Draft, "Write a draft as JSON.")
        assert isinstance(draft, Draft)
        assert all(isinstance(s.citations, list) for s in draft.sentences)

    async def test_a_request_is_not_changed_by_generation(self, llm: LanguageModel) -> None:
        request = LLMRequest(prompt="Answer with JSON.", schema=ANSWER_SCHEMA)
        before = msgspec.json.encode(request)
        await llm.generate(request)
        assert msgspec.json.encode(request) == before

    async def test_failure_is_upstream_error_without_the_prompt(
        self, failing_llm: LanguageModel
    ) -> None:
        import pytest  # here, not at the top: importing the suite needs no pytest

        with pytest.raises(UpstreamError) as info:
            await failing_llm.generate(LLMRequest(prompt=f"Summarise: {SECRET}"))
        error = info.value
        assert error.reason in (ReasonCode.LLM_FAILED, ReasonCode.LLM_BAD_OUTPUT)
        for text in (str(error), error.detail):
            assert "launch" not in text and "14th" not in text
