"""Every reranker adapter against the reranker contract, offline, plus each one's judgement.

- ``none`` is the reference: it keeps the order.
- The LLM listwise reranker runs on the scripted fake LLM and on the
  OpenAI-compatible adapter against a local fake server on 127.0.0.1 that
  answers recorded responses (a reversed order, malformed JSON, a 500): never
  the network.
- The cross-encoder loads a tiny randomly initialised BERT cross-encoder that
  the test builds with transformers and saves to a temporary directory (two
  layers, hidden size 16, a made-up WordPiece vocabulary): no weights are
  downloaded; its scores mean nothing, the plumbing is what is tested.
"""

import json
import re
from collections.abc import AsyncIterator, Callable, Iterator
from email.message import Message
from pathlib import Path
from typing import Any, ClassVar

import msgspec
import pytest

from adapters.inmemory.fake_llm import ScriptedLLM
from adapters.llm.openai_llm import OpenAICompatibleLLM
from adapters.rerankers.llm_listwise import LLMListwiseReranker
from adapters.rerankers.none import NoRerank
from application.ports.llm import LLMRequest
from application.ports.rerank import Reranker
from contracts.reranker import CANDIDATES, QUERY, RerankerContract
from domain.reasons import ReasonCode
from tests.support.fake_http import LocalJSONServer
from tests.support.logs import rerank_log

Answer = Callable[[str], tuple[int, str]]


def _numbers(prompt: str) -> list[int]:
    return [int(n) for n in re.findall(r"^\[(\d+)\]", prompt, re.MULTILINE)]


def reversed_order(prompt: str) -> str:
    return json.dumps({"order": _numbers(prompt)[::-1]})


class RecordedLLMServer(LocalJSONServer):
    """``POST /v1/chat/completions``; the path's first segment picks the recorded answer."""

    ANSWERS: ClassVar[dict[str, Answer]] = {
        "reverse": lambda p: (200, reversed_order(p)),
        "fenced": lambda p: (200, "```json\n" + reversed_order(p) + "\n```"),
        "malformed": lambda p: (200, '{"order": [1, 2'),
        "wrong-shape": lambda p: (200, '{"order": [{"id": 1}]}'),
        "error": lambda p: (500, ""),
    }

    def __init__(self) -> None:
        super().__init__()
        self.prompts: list[str] = []

    def llm(self, answer: str) -> OpenAICompatibleLLM:
        return OpenAICompatibleLLM(
            base_url=f"{self.url}/{answer}/v1", model="llama-local", max_retries=0
        )

    def respond(self, path: str, headers: Message, body: dict[str, Any]) -> tuple[int, object]:
        kind = path.strip("/").split("/")[0]
        prompt = body["messages"][-1]["content"]
        self.prompts.append(prompt)
        status, content = self.ANSWERS[kind](prompt)
        if status != 200:
            return status, {"error": {"message": f"failed on {prompt}"}}
        message = {"role": "assistant", "content": content}
        return status, {
            "id": "c1",
            "object": "chat.completion",
            "created": 0,
            "model": body["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        }


@pytest.fixture(scope="module")
def llm_server() -> Iterator[RecordedLLMServer]:
    with RecordedLLMServer() as server:
        yield server


def scripted_reverse(request: LLMRequest) -> str:
    return reversed_order(request.prompt)


class TestNoRerank(RerankerContract):
    @pytest.fixture
    def reranker(self) -> Reranker:
        return NoRerank()

    @pytest.fixture
    def failing_reranker(self) -> Reranker:
        return NoRerank()

    async def test_keeps_the_order_and_says_nothing(self, reranker: Reranker) -> None:
        scores = await reranker.rerank(QUERY, CANDIDATES)
        assert _order(scores) == ["t1", "t2", "t3", "t4"]
        assert all(s.reasons == [] for s in scores)


class TestScriptedLLMReranker(RerankerContract):
    @pytest.fixture
    def reranker(self) -> Reranker:
        return LLMListwiseReranker(ScriptedLLM(scripted_reverse))

    @pytest.fixture
    def failing_reranker(self) -> Reranker:
        return LLMListwiseReranker(ScriptedLLM(fail_with=ReasonCode.LLM_FAILED))


class TestOpenAICompatibleLLMReranker(RerankerContract):
    @pytest.fixture
    async def reranker(self, llm_server: RecordedLLMServer) -> AsyncIterator[Reranker]:
        llm = llm_server.llm("reverse")
        yield LLMListwiseReranker(llm)
        await llm.aclose()

    @pytest.fixture
    async def failing_reranker(self, llm_server: RecordedLLMServer) -> AsyncIterator[Reranker]:
        llm = llm_server.llm("error")
        yield LLMListwiseReranker(llm)
        await llm.aclose()


def _order(scores: list[Any]) -> list[str]:
    return [s.item_id for s in sorted(scores, key=lambda s: -s.score)]


@pytest.mark.parametrize("answer", ["reverse", "fenced"])
async def test_recorded_orders_over_http_are_applied(
    llm_server: RecordedLLMServer, answer: str
) -> None:
    llm = llm_server.llm(answer)
    try:
        scores = await LLMListwiseReranker(llm).rerank(QUERY, CANDIDATES)
    finally:
        await llm.aclose()
    assert _order(scores) == ["t4", "t3", "t2", "t1"]
    assert all(s.reasons and "llama-local" in s.reasons[0] for s in scores)
    prompt = llm_server.prompts[-1]
    assert "[2] (2023-05-08, Maya) Maya: Yes!! We called him Pixel" in prompt
    assert "[3] (undated, user)" in prompt


@pytest.mark.parametrize("answer", ["malformed", "wrong-shape", "error"])
async def test_bad_recorded_answers_over_http_fail_soft(
    llm_server: RecordedLLMServer, answer: str, caplog: pytest.LogCaptureFixture
) -> None:
    llm = llm_server.llm(answer)
    try:
        with rerank_log(caplog):
            scores = await LLMListwiseReranker(llm).rerank(QUERY, CANDIDATES)
    finally:
        await llm.aclose()
    assert _order(scores) == ["t1", "t2", "t3", "t4"]
    assert all(s.reasons == [] for s in scores)
    assert ReasonCode.RERANK_FAILED.value in caplog.text
    assert "Pixel" not in caplog.text


async def test_a_partial_order_puts_the_rest_after_in_their_order() -> None:
    llm = ScriptedLLM([msgspec.json.encode({"order": [4, 2]}).decode()])
    scores = await LLMListwiseReranker(llm).rerank(QUERY, CANDIDATES)
    assert _order(scores) == ["t4", "t2", "t1", "t3"]
    reasons = {s.item_id: s.reasons for s in scores}
    assert reasons["t4"] == ["scripted placed it 1 of 2"]
    assert reasons["t1"] == ["scripted left it out"]


async def test_one_candidate_needs_no_model_call() -> None:
    llm = ScriptedLLM([])
    assert _order(await LLMListwiseReranker(llm).rerank(QUERY, CANDIDATES[:1])) == ["t1"]
    assert llm.requests == []


# -- the cross-encoder (the ``st`` extra) -----------------------------------

_TEXT = (
    "what did maya name the cat she adopted yes we called him pixel sam you end up "
    "adopting from shelter quarterly report is due on friday i ran my first marathon last"
)


def build_tiny_cross_encoder(folder: Path) -> Path:
    """A randomly initialised 2-layer BERT cross-encoder with a made-up vocabulary."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    folder.mkdir(parents=True, exist_ok=True)
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *dict.fromkeys(_TEXT.split(" "))]
    (folder / "vocab.txt").write_text("\n".join(vocab) + "\n", encoding="utf-8")
    torch.manual_seed(7)
    config = transformers.BertConfig(
        vocab_size=len(vocab),
        hidden_size=16,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=32,
        max_position_embeddings=64,
        num_labels=1,
    )
    transformers.BertForSequenceClassification(config).save_pretrained(folder)
    transformers.BertTokenizer(str(folder / "vocab.txt")).save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("sentence_transformers", reason="the cross-encoder needs the st extra")
    return build_tiny_cross_encoder(tmp_path_factory.mktemp("cross-encoder") / "model")


class TestCrossEncoderReranker(RerankerContract):
    @pytest.fixture
    def reranker(self, tiny_model: Path) -> Reranker:
        from adapters.rerankers.cross_encoder import CrossEncoderReranker

        return CrossEncoderReranker(tiny_model)

    @pytest.fixture
    def failing_reranker(self, tmp_path: Path) -> Reranker:
        from adapters.rerankers.cross_encoder import CrossEncoderReranker

        return CrossEncoderReranker(tmp_path)  # an empty directory: no model to load

    async def test_scores_come_from_the_model(self, tiny_model: Path) -> None:
        from adapters.rerankers.cross_encoder import CrossEncoderReranker

        scores = await CrossEncoderReranker(tiny_model).rerank(QUERY, CANDIDATES)
        assert all(s.reasons and s.reasons[0].startswith("cross-encoder ") for s in scores)
        assert len({round(s.score, 7) for s in scores}) > 1, "the model tells the pairs apart"
