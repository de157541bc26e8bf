"""The rerank step through the real retrieval seam, on the reference adapters.

With no reranker (the default) and with the ``none`` adapter, results are
byte-identical to the ranker's; a configured reranker reorders the top N and
the reasons say what moved; a reranker that fails, raises or answers
malformed output keeps the ranker's order, logs ``rerank_failed`` and never
fails the search.
"""

import re
from collections.abc import Sequence
from datetime import UTC, datetime

import msgspec
import pytest

from adapters.inmemory.fake_llm import ScriptedLLM
from adapters.inmemory.synthesis_runs import InMemorySynthesisRuns
from adapters.rerankers.llm_listwise import LLMListwiseReranker
from adapters.rerankers.none import NoRerank
from adapters.system.ids import TimeOrderedIds
from adapters.tokenizers.tiktoken_counter import TiktokenCounter
from application.memory.commands import ContextRequest, RememberRequest, SearchRequest
from application.memory.service import MemoryService
from application.ports.llm import LLMRequest
from application.ports.rerank import RerankCandidate, Reranker, RerankScore
from application.retrieval.recall import Recall
from domain.models import Turn
from domain.reasons import ReasonCode
from domain.scopes import SourceType
from entrypoints.bootstrap import compose
from tests.support.logs import rerank_log
from tests.unit.application.conftest import Parts

ORG = "acme"
QUESTION = "What did Maya name the cat she adopted?"


def _service(parts: Parts, reranker: Reranker | None, top_n: int = 20) -> MemoryService:
    w = parts.world
    recall = Recall(
        store=w.store, index=w.index, embedder=w.embedder, reranker=reranker, rerank_top_n=top_n
    )
    return compose(
        store=w.store,
        index=w.index,
        embedder=w.embedder,
        tokens=TiktokenCounter(),
        control=w.control_store,
        audit_log=w.audit_log,
        clock=w.clock,
        ids=TimeOrderedIds(),
        home_org_id="home",
        synthesis_runs=InMemorySynthesisRuns(),
        recall=recall,
    ).memory


async def _seed(parts: Parts) -> None:
    sessions = [
        (8, [("Sam", "Did you end up adopting the cat from the shelter?"),
             ("Maya", "Yes!! We called him Pixel, he's tiny."),
             ("Sam", "A cat named Pixel, cute. Does the cat sleep a lot?")]),
        (12, [("Maya", "I ran my first marathon last weekend!"),
              ("Sam", "Congratulations, how was the cat while you ran?")]),
        (20, [("Sam", "My sister wants to adopt a cat too."),
              ("Maya", "Tell her the shelter has kittens.")]),
    ]
    for day, lines in sessions:
        when = datetime(2023, 5, day, 18, 0, tzinfo=UTC)
        await parts.service.remember(
            RememberRequest(
                org_id=ORG,
                source_type=SourceType.CONVERSATION,
                occurred_at=when,
                turns=[
                    Turn(role="user" if who == "Sam" else "assistant", content=text, speaker=who)
                    for who, text in lines
                ],
            ),
            parts.ctx,
        )


def _numbers(request: LLMRequest) -> list[int]:
    return [int(n) for n in re.findall(r"^\[(\d+)\]", request.prompt, re.MULTILINE)]


def reverse(request: LLMRequest) -> str:
    return msgspec.json.encode({"order": _numbers(request)[::-1]}).decode()


async def _search(service: MemoryService, parts: Parts, limit: int = 10) -> bytes:
    results = await service.search(
        SearchRequest(org_id=ORG, query=QUESTION, limit=limit), parts.ctx
    )
    return msgspec.json.encode(results)


async def _pack(service: MemoryService, parts: Parts) -> bytes:
    pack = await service.context_pack(ContextRequest(org_id=ORG, query=QUESTION), parts.ctx)
    return msgspec.json.encode(pack)


async def test_none_is_byte_identical_to_no_reranker(parts: Parts) -> None:
    await _seed(parts)
    today = await _search(parts.service, parts)
    assert today == await _search(_service(parts, None), parts)
    assert today == await _search(_service(parts, NoRerank()), parts)
    assert await _pack(parts.service, parts) == await _pack(_service(parts, NoRerank()), parts)


async def test_an_llm_reranker_reorders_the_top_and_says_so(parts: Parts) -> None:
    await _seed(parts)
    llm = ScriptedLLM(reverse)
    service = _service(parts, LLMListwiseReranker(llm))
    before = msgspec.json.decode(await _search(parts.service, parts))["results"]
    after = msgspec.json.decode(await _search(service, parts))["results"]
    assert len(before) == len(after) >= 3
    assert [h["chunk_id"] for h in after] == [h["chunk_id"] for h in before][::-1]
    count = len(after)
    assert f"reranked from {count} to 1 by llm" in after[0]["reason"]
    assert f"reranked from 1 to {count} by llm" in after[-1]["reason"]
    # the model saw speakers and dates, and only the candidates the caller may read
    prompt = llm.requests[0].prompt
    assert "(2023-05-08, Maya)" in prompt and QUESTION in prompt
    assert llm.requests[0].schema is not None


async def test_top_n_bounds_what_the_reranker_sees_and_can_lift_past_the_limit(
    parts: Parts,
) -> None:
    await _seed(parts)
    llm = ScriptedLLM(reverse)
    full = msgspec.json.decode(await _search(parts.service, parts))["results"]
    assert len(full) >= 4
    top = await _search(_service(parts, LLMListwiseReranker(llm), top_n=4), parts, limit=2)
    shown = [h["chunk_id"] for h in msgspec.json.decode(top)["results"]]
    assert _numbers(llm.requests[0]) == [1, 2, 3, 4]
    assert shown == [full[3]["chunk_id"], full[2]["chunk_id"]]


@pytest.mark.parametrize(
    "answers",
    [
        ["not json at all"],
        ['{"order": "3,2,1"}'],
        ['{"order": [1, 1]}'],
        ['{"order": [99]}'],
        ['{"ranking": [1]}'],
        [],  # the scripted model has nothing left: an llm_failed
    ],
)
async def test_malformed_or_failed_llm_output_keeps_the_order_and_logs(
    parts: Parts, answers: list[str], caplog: pytest.LogCaptureFixture
) -> None:
    await _seed(parts)
    service = _service(parts, LLMListwiseReranker(ScriptedLLM(answers)))
    with rerank_log(caplog):
        assert await _search(service, parts) == await _search(parts.service, parts)
    assert ReasonCode.RERANK_FAILED.value in caplog.text
    assert "Pixel" not in caplog.text and "cat" not in caplog.text


async def test_a_provider_failure_keeps_the_order(parts: Parts) -> None:
    await _seed(parts)
    llm = ScriptedLLM(fail_with=ReasonCode.LLM_FAILED)
    service = _service(parts, LLMListwiseReranker(llm))
    assert await _search(service, parts) == await _search(parts.service, parts)


class Raising:
    name = "raising"

    async def rerank(self, query: str, candidates: Sequence[RerankCandidate]) -> list[RerankScore]:
        raise RuntimeError(f"boom on {query}")


class Partial:
    name = "partial"

    async def rerank(self, query: str, candidates: Sequence[RerankCandidate]) -> list[RerankScore]:
        return [RerankScore(item_id=candidates[-1].item_id, score=9.0)]


@pytest.mark.parametrize("reranker", [Raising(), Partial()])
async def test_an_outside_reranker_that_breaks_its_contract_never_fails_a_search(
    parts: Parts, reranker: Reranker, caplog: pytest.LogCaptureFixture
) -> None:
    await _seed(parts)
    with rerank_log(caplog):
        assert await _search(_service(parts, reranker), parts) == await _search(
            parts.service, parts
        )
    assert ReasonCode.RERANK_FAILED.value in caplog.text
    assert QUESTION not in caplog.text
