"""Every language-model adapter against the LLM contract, offline.

OpenAI, the OpenAI-compatible adapter and Gemini talk to a local fake server
on 127.0.0.1 implementing just the route each SDK calls (Chat Completions and
``generateContent``); it answers a minimal value of the requested schema, as
the scripted fake LLM does. The API key picks a failure (``-500``, ``-401``)
whose body echoes the prompt and the key, as a careless server might: the
adapters must not pass either on.
"""

import json
import uuid
from collections.abc import AsyncIterator, Iterator
from email.message import Message
from typing import Any

import msgspec
import pytest

from adapters.inmemory.fake_llm import ScriptedLLM, example_for_schema
from adapters.llm.gemini_llm import GeminiLLM
from adapters.llm.openai_llm import OpenAICompatibleLLM, OpenAILLM
from application.ports.llm import LanguageModel, LLMRequest, generate_structured
from contracts.llm import ANSWER_SCHEMA, LLMContract
from domain.errors import UpstreamError
from domain.reasons import ReasonCode
from tests.support.fake_http import LocalJSONServer


class FakeLLMServer(LocalJSONServer):
    """OpenAI ``POST /v1/chat/completions`` and Gemini ``POST .../models/M:generateContent``."""

    def __init__(self) -> None:
        super().__init__()
        self.bodies: list[tuple[str, dict[str, Any]]] = []

    def bodies_for(self, key: str) -> list[dict[str, Any]]:
        return [b for k, b in self.bodies if k == key]

    def respond(self, path: str, headers: Message, body: dict[str, Any]) -> tuple[int, object]:
        if path == "/v1/chat/completions":
            key = headers.get("Authorization", "").removeprefix("Bearer ")
            self.bodies.append((key, body))
            return self._openai(key, body)
        if path.endswith(":generateContent"):
            key = headers.get("x-goog-api-key", "")
            self.bodies.append((key, body))
            return self._gemini(key, body)
        return 404, {"error": {"message": f"no route {path}"}}

    @staticmethod
    def _failure(key: str, prompt: str) -> tuple[int, object] | None:
        for status in (500, 401):
            if key.endswith(f"-{status}"):
                message = f"key {key} refused for prompt {prompt}"
                return status, {"error": {"code": status, "message": message}}
        return None

    @staticmethod
    def _answer(schema: dict[str, Any] | None) -> str:
        if schema is None:
            return "hello from the fake server"
        return json.dumps(example_for_schema(schema))

    def _openai(self, key: str, body: dict[str, Any]) -> tuple[int, object]:
        prompt = body["messages"][-1]["content"]
        if failure := self._failure(key, prompt):
            return failure
        fmt = body.get("response_format")
        schema = fmt["json_schema"]["schema"] if fmt else None
        message = {"role": "assistant", "content": self._answer(schema)}
        choice = {"index": 0, "message": message, "finish_reason": "stop"}
        return 200, {
            "id": "c1",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [choice],
        }

    def _gemini(self, key: str, body: dict[str, Any]) -> tuple[int, object]:
        prompt = body["contents"][0]["parts"][0]["text"]
        if failure := self._failure(key, prompt):
            return failure
        schema = body.get("generationConfig", {}).get("responseJsonSchema")
        content = {"role": "model", "parts": [{"text": self._answer(schema)}]}
        return 200, {"candidates": [{"content": content, "finishReason": "STOP"}]}


@pytest.fixture(scope="module")
def llm_server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


def new_key(mode: str = "ok") -> str:
    return f"sk-test-{uuid.uuid4().hex}-{mode}"


def openai_llm(server: FakeLLMServer, key: str) -> OpenAILLM:
    return OpenAILLM(api_key=key, model="gpt-test", base_url=f"{server.url}/v1", max_retries=0)


def gemini_llm(server: FakeLLMServer, key: str) -> GeminiLLM:
    return GeminiLLM(api_key=key, model="gemini-test", base_url=server.url, max_retries=0)


class TestScriptedLLM(LLMContract):
    @pytest.fixture
    def llm(self) -> LanguageModel:
        return ScriptedLLM()

    @pytest.fixture
    def failing_llm(self) -> LanguageModel:
        return ScriptedLLM(fail_with=ReasonCode.LLM_FAILED)


class TestOpenAILLM(LLMContract):
    @pytest.fixture
    async def llm(self, llm_server: FakeLLMServer) -> AsyncIterator[LanguageModel]:
        llm = openai_llm(llm_server, new_key())
        yield llm
        await llm.aclose()

    @pytest.fixture
    async def failing_llm(self, llm_server: FakeLLMServer) -> AsyncIterator[LanguageModel]:
        llm = openai_llm(llm_server, new_key("500"))
        yield llm
        await llm.aclose()


class TestOpenAICompatibleLLM(LLMContract):
    @pytest.fixture
    async def llm(self, llm_server: FakeLLMServer) -> AsyncIterator[LanguageModel]:
        llm = OpenAICompatibleLLM(base_url=f"{llm_server.url}/v1", model="llama-local")
        yield llm
        await llm.aclose()

    @pytest.fixture
    async def failing_llm(self, llm_server: FakeLLMServer) -> AsyncIterator[LanguageModel]:
        llm = OpenAICompatibleLLM(
            base_url=f"{llm_server.url}/v1", model="llama-local", api_key=new_key("401")
        )
        yield llm
        await llm.aclose()


class TestGeminiLLM(LLMContract):
    @pytest.fixture
    async def llm(self, llm_server: FakeLLMServer) -> AsyncIterator[LanguageModel]:
        llm = gemini_llm(llm_server, new_key())
        yield llm
        await llm.aclose()

    @pytest.fixture
    async def failing_llm(self, llm_server: FakeLLMServer) -> AsyncIterator[LanguageModel]:
        llm = gemini_llm(llm_server, new_key("500"))
        yield llm
        await llm.aclose()


async def test_openai_sends_system_prompt_and_schema(llm_server: FakeLLMServer) -> None:
    key = new_key()
    llm = openai_llm(llm_server, key)
    try:
        await llm.generate(LLMRequest(prompt="p", system="s", schema=ANSWER_SCHEMA))
    finally:
        await llm.aclose()
    (body,) = llm_server.bodies_for(key)
    assert body["messages"] == [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "p"},
    ]
    assert body["response_format"]["json_schema"]["schema"] == ANSWER_SCHEMA
    assert body["temperature"] == 0.0


async def test_gemini_sends_system_instruction_and_json_schema(llm_server: FakeLLMServer) -> None:
    key = new_key()
    llm = gemini_llm(llm_server, key)
    try:
        await llm.generate(LLMRequest(prompt="p", system="s", schema=ANSWER_SCHEMA))
    finally:
        await llm.aclose()
    (body,) = llm_server.bodies_for(key)
    assert body["systemInstruction"]["parts"][0]["text"] == "s"
    assert body["generationConfig"]["responseMimeType"] == "application/json"
    assert body["generationConfig"]["responseJsonSchema"] == ANSWER_SCHEMA


@pytest.mark.parametrize("mode", ["500", "401"])
async def test_openai_failure_never_quotes_key_or_prompt(
    llm_server: FakeLLMServer, mode: str
) -> None:
    key = new_key(mode)
    llm = openai_llm(llm_server, key)
    try:
        with pytest.raises(UpstreamError) as info:
            await llm.generate(LLMRequest(prompt="secret plans"))
    finally:
        await llm.aclose()
    assert info.value.reason is ReasonCode.LLM_FAILED
    assert f"HTTP {mode}" in info.value.detail
    assert key not in str(info.value) and "secret" not in str(info.value)
    assert info.value.__cause__ is None


class Verdict(msgspec.Struct, frozen=True):
    ok: bool


async def test_an_answer_that_is_not_the_schema_is_bad_output() -> None:
    with pytest.raises(UpstreamError) as info:
        await generate_structured(ScriptedLLM(['{"ok": "maybe"}']), Verdict, "p")
    assert info.value.reason is ReasonCode.LLM_BAD_OUTPUT
    with pytest.raises(UpstreamError) as info:
        await ScriptedLLM(["not json"]).generate(LLMRequest(prompt="p", schema={"type": "object"}))
    assert info.value.reason is ReasonCode.LLM_BAD_OUTPUT


async def test_scripted_llm_answers_in_order_and_records_requests() -> None:
    llm = ScriptedLLM(["one", "two"])
    assert (await llm.generate(LLMRequest(prompt="a"))).text == "one"
    assert (await llm.generate(LLMRequest(prompt="b"))).text == "two"
    assert [r.prompt for r in llm.requests] == ["a", "b"]
    with pytest.raises(UpstreamError):
        await llm.generate(LLMRequest(prompt="c"))
