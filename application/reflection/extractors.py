"""The extractors reflection ships: offline rules (the default) and an LLM (off by default).

Both read one active source the caller may read and return ``Extracted``
candidates whose spans point into that source's content. The LLM is asked
for verbatim quotes rather than offsets (models count characters badly);
each quote is located in the source, and a candidate whose quote is not
there is dropped, so an LLM cannot cite what the source does not say.
"""

from collections.abc import Sequence

import msgspec

from application.ports.llm import LanguageModel, generate_structured
from application.ports.reflection import SentenceSegmenter
from domain.models import Source
from domain.reflection.candidates import (
    MAX_CANDIDATE_CHARS,
    CandidateType,
    Extracted,
    Span,
)
from domain.reflection.rules import RULES_EXTRACTOR, RULES_VERSION, extract_by_rules

__all__ = ["LLM_EXTRACTOR", "LLMExtractor", "RulesExtractor", "participants_of"]

LLM_EXTRACTOR = "llm"
_LLM_VERSION = "1"
#: the LLM reads at most this much of one source
_LLM_MAX_CHARS = 24_000
_SYSTEM = (
    "You extract durable memory from one text: decisions, procedures, tasks, preferences, "
    "facts, artifacts, people, projects, events and other entities that the text states "
    "outright. For each, give its type, a short text stating it, a confidence between 0 "
    "and 1, and the exact verbatim quote of the text that supports it. Never invent; "
    "return no candidates rather than guess."
)


def participants_of(source: Source) -> list[str]:
    """The people a message names in its headers (``from``, ``to``, ``cc`` metadata)."""
    names: list[str] = []
    for field in ("from", "to", "cc"):
        value = source.metadata.get(field)
        if isinstance(value, list):
            names.extend(value)
        elif isinstance(value, str):
            names.append(value)
    return names


class RulesExtractor:
    """``domain.reflection.rules`` behind the port: deterministic, offline, reading each
    line with the segmenter it is given."""

    def __init__(self, segmenter: SentenceSegmenter) -> None:
        self._segmenter = segmenter

    @property
    def name(self) -> str:
        return RULES_EXTRACTOR

    @property
    def version(self) -> str:
        return RULES_VERSION

    async def extract(self, source: Source) -> list[Extracted]:
        return extract_by_rules(
            source.source_id, source.content, self._segmenter.sentences, participants_of(source)
        )


class _LLMCandidate(msgspec.Struct, frozen=True, kw_only=True):
    type: CandidateType
    text: str
    quote: str
    confidence: float = 0.5


class _LLMAnswer(msgspec.Struct, frozen=True, kw_only=True):
    candidates: list[_LLMCandidate]


_STATEMENTS = tuple(t for t in CandidateType if t is not CandidateType.RELATIONSHIP)


class LLMExtractor:
    """Structured JSON from the LLM port, checked: known types, quotes found in the source."""

    def __init__(self, llm: LanguageModel) -> None:
        self._llm = llm

    @property
    def name(self) -> str:
        return LLM_EXTRACTOR

    @property
    def version(self) -> str:
        return f"{_LLM_VERSION}:{self._llm.model}"

    async def extract(self, source: Source) -> list[Extracted]:
        text = source.content[:_LLM_MAX_CHARS]
        answer = await generate_structured(
            self._llm,
            _LLMAnswer,
            f"Types: {', '.join(_STATEMENTS)}.\n\nText:\n{text}",
            system=_SYSTEM,
        )
        return _checked(source.source_id, text, answer.candidates)


def _checked(source_id: str, text: str, found: Sequence[_LLMCandidate]) -> list[Extracted]:
    kept: list[Extracted] = []
    for item in found:
        quote = item.quote.strip()
        at = text.find(quote) if quote else -1
        statement = item.text.strip()[:MAX_CANDIDATE_CHARS]
        if at < 0 or not statement or item.type is CandidateType.RELATIONSHIP:
            continue
        kept.append(
            Extracted(
                type=item.type,
                text=statement,
                spans=(Span(source_id=source_id, start=at, end=at + len(quote)),),
                confidence=min(max(item.confidence, 0.0), 1.0),
            )
        )
    return kept
