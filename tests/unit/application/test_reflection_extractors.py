"""The extractors behind the port: rules over a message, an LLM checked against its source."""

from datetime import UTC, datetime

import msgspec
import pytest

from adapters.inmemory.fake_llm import ScriptedLLM
from adapters.text.sentences import SentencexSegmenter
from application.reflection.extractors import LLMExtractor, RulesExtractor
from domain.errors import UpstreamError
from domain.hashing import content_hash
from domain.models import Source
from domain.reasons import ReasonCode
from domain.reflection.candidates import CandidateType
from domain.scopes import MemoryScope, SourceType

TEXT = "Decision: we ship on Fridays. Tom owns the release notes."


def _source(**metadata: object) -> Source:
    return Source(
        source_id="s1",
        org_id="org",
        scope=MemoryScope.PRIVATE,
        scope_key="ana",
        source_type=SourceType.EMAIL,
        content=TEXT,
        content_hash=content_hash(TEXT),
        metadata=metadata,  # type: ignore[arg-type]
        created_by="ana",
        created_at=datetime(2026, 3, 1, tzinfo=UTC),
    )


async def test_rules_read_the_text_and_the_message_participants() -> None:
    found = await RulesExtractor(SentencexSegmenter()).extract(
        _source(**{"from": ["ana@x.org"], "cc": "tom@x.org"})
    )
    assert [(f.type, f.text) for f in found] == [
        (CandidateType.DECISION, "Decision: we ship on Fridays."),
        (CandidateType.PERSON, "ana@x.org"),
        (CandidateType.PERSON, "tom@x.org"),
    ]


def _answer(*items: dict[str, object]) -> str:
    return msgspec.json.encode({"candidates": list(items)}).decode()


async def test_the_llm_extractor_keeps_only_quotes_found_in_the_source() -> None:
    llm = ScriptedLLM(
        [
            _answer(
                {
                    "type": "fact",
                    "text": "Tom writes release notes.",
                    "quote": "Tom owns the release notes.",
                    "confidence": 0.8,
                },
                {"type": "decision", "text": "Ship Mondays.", "quote": "we ship on Mondays"},
                {"type": "task", "text": "  ", "quote": "Tom"},
                {"type": "fact", "text": "Too sure.", "quote": "Decision", "confidence": 7},
            )
        ],
        model="fake-1",
    )
    extractor = LLMExtractor(llm)
    assert (extractor.name, extractor.version) == ("llm", "1:fake-1")
    found = await extractor.extract(_source())
    assert [(f.type, f.text, f.confidence) for f in found] == [
        (CandidateType.FACT, "Tom writes release notes.", 0.8),
        (CandidateType.FACT, "Too sure.", 1.0),
    ]
    span = found[0].spans[0]
    assert TEXT[span.start : span.end] == "Tom owns the release notes."
    assert llm.requests[0].schema is not None and TEXT in llm.requests[0].prompt


async def test_an_llm_answer_outside_the_schema_is_bad_output() -> None:
    llm = ScriptedLLM([msgspec.json.encode({"candidates": [{"type": "poem"}]}).decode()])
    with pytest.raises(UpstreamError) as failed:
        await LLMExtractor(llm).extract(_source())
    assert failed.value.reason is ReasonCode.LLM_BAD_OUTPUT
