"""Two drafters behind one port: extractive (the offline default) and an LLM.

The extractive drafter never adds a fact: it quotes whole sentences of the
section packs that contain at least one of the section's own words (its cue
or outline title; the topic for a Summary), best first by how many of the
section's evidence words they contain (ties keep pack order), and cites the
source each came from. A section no sentence speaks to is a gap, even when
retrieval (which always returns its nearest neighbours) found chunks; each
source of the pack it does not quote is listed with why (``LeftOut``). Both
drafters are handed only the snippets that bear on the question
(``application.synthesis.bearing``). The
LLM drafter receives only the authorized packs (the snippets the actor and
the audience may read, labelled by source id) and must cite those ids;
``verify`` judges what it wrote, so an uncited or unsupported sentence
blocks the document instead of reaching it.
"""

import msgspec

from application.ports.llm import LanguageModel, generate_structured
from application.synthesis.records import (
    Draft,
    DraftSection,
    DraftSentence,
    LeftOut,
    OutlineSection,
    SectionPack,
)
from domain.ranking.text import content_terms, tokens
from domain.synthesis.bearing import LeftOutReason
from domain.synthesis.text import split_sentences, without_patches

__all__ = ["ExtractiveDrafter", "LLMDrafter", "render_markdown"]

#: sentences per section and per snippet in an extractive draft
_PER_SECTION = 5
_PER_SNIPPET = 2
GAP_TEXT = "_Gap: no memory this audience may read supports this section._"


def _fragment(sentence: str) -> bool:
    """A chunk that starts mid-sentence yields a tail ("the reader and then ..."): skip it."""
    return sentence[0].isalpha() and sentence[0].islower()


def _repeats(key: str, seen: set[str]) -> bool:
    """Chunks overlap, so the same sentence (or a part of it) can come twice."""
    return any(key in other or other in key for other in seen)


def render_markdown(query: str, sections: list[DraftSection]) -> str:
    lines = [f"# {query.strip()}", ""]
    for section in sections:
        lines += [f"## {section.title}", ""]
        if section.gap or not section.sentences:
            lines += [GAP_TEXT, ""]
            continue
        for s in section.sentences:
            cites = "".join(f"[{c}]" for c in s.citations)
            lines.append(f"- {s.text} {cites}".rstrip())
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


class ExtractiveDrafter:
    name = "extractive"

    async def draft(
        self, query: str, outline: list[OutlineSection], packs: list[SectionPack]
    ) -> Draft:
        seen: set[str] = set()
        sections = []
        topic = set(content_terms(query))
        for section, pack in zip(outline, packs, strict=True):
            terms = set(content_terms(section.evidence_query))
            # a sentence must speak to the section itself: its cue or title words, or for a
            # section without cue words (Summary) the topic; otherwise the section is a gap
            own = (terms - topic) or terms
            chosen: list[DraftSentence] = []
            why: dict[str, LeftOutReason] = {}  # per source, why a snippet gave nothing
            for snippet in pack.snippets:
                scored = []
                repeated = False
                for n, sentence in enumerate(split_sentences(snippet.text)):
                    key = " ".join(tokens(sentence))
                    words = set(tokens(sentence))
                    if _fragment(sentence) or not own & words:
                        continue
                    if _repeats(key, seen):
                        repeated = True
                        continue
                    score = len(own & words) * 2 + len(terms & words)
                    scored.append((-score, n, sentence, key))
                picked = sorted(scored)[:_PER_SNIPPET]
                if len(chosen) >= _PER_SECTION and picked:
                    why.setdefault(snippet.source_id, LeftOutReason.SECTION_FULL)
                    continue
                if not picked:
                    why.setdefault(snippet.source_id, _nothing_from(snippet.text, own, repeated))
                for _, _, sentence, key in picked:
                    if len(chosen) >= _PER_SECTION:
                        break
                    seen.add(key)
                    chosen.append(DraftSentence(text=sentence, citations=[snippet.source_id]))
            quoted = {c for s in chosen for c in s.citations}
            left_out = [LeftOut.of(sid, r) for sid, r in why.items() if sid not in quoted]
            sections.append(
                DraftSection(
                    title=section.title, sentences=chosen, gap=not chosen, left_out=left_out
                )
            )
        return Draft(
            drafter=self.name, markdown=render_markdown(query, sections), sections=sections
        )


def _nothing_from(text: str, own: set[str], repeated: bool) -> LeftOutReason:
    """Why a snippet gave a section (whose own words are ``own``) no sentence."""
    if repeated:
        return LeftOutReason.ALREADY_QUOTED
    if any(own & set(tokens(line)) for line in without_patches(text)[1]):
        return LeftOutReason.CODE_DIFF  # only its diff spoke to the section
    return LeftOutReason.NOTHING_FOR_SECTION


class _Sentence(msgspec.Struct, frozen=True):
    text: str
    citations: list[str]


class _Section(msgspec.Struct, frozen=True):
    title: str
    sentences: list[_Sentence]


class _Answer(msgspec.Struct, frozen=True):
    sections: list[_Section]


_SYSTEM = (
    "You write a short document from numbered evidence only. Every sentence must cite, in "
    "'citations', the source ids of the evidence that states it. Do not add facts, names, "
    "numbers or dates that the evidence does not state. If a section has no evidence, "
    "return it with no sentences."
)


def _prompt(query: str, outline: list[OutlineSection], packs: list[SectionPack]) -> str:
    parts = [f"Topic: {query}", ""]
    for section, pack in zip(outline, packs, strict=True):
        parts.append(f"## Section: {section.title} (should cover: {section.needs})")
        for s in pack.snippets:
            parts.append(f"[source {s.source_id}] {s.text}")
        if not pack.snippets:
            parts.append("(no evidence)")
        parts.append("")
    return "\n".join(parts)


class LLMDrafter:
    """Drafts through the LLM port; the prompt holds only the authorized packs."""

    def __init__(self, llm: LanguageModel, *, max_tokens: int = 2048) -> None:
        self._llm = llm
        self._max_tokens = max_tokens

    @property
    def name(self) -> str:
        return f"llm:{self._llm.model}"

    async def draft(
        self, query: str, outline: list[OutlineSection], packs: list[SectionPack]
    ) -> Draft:
        answer = await generate_structured(
            self._llm,
            _Answer,
            _prompt(query, outline, packs),
            system=_SYSTEM,
            max_tokens=self._max_tokens,
        )
        by_title = {s.title.strip().lower(): s for s in answer.sections}
        sections = []
        for n, (section, pack) in enumerate(zip(outline, packs, strict=True)):
            written = by_title.get(section.title.strip().lower()) or (
                answer.sections[n] if n < len(answer.sections) else None
            )
            sentences = [
                DraftSentence(text=s.text.strip(), citations=list(dict.fromkeys(s.citations)))
                for s in (written.sentences if written else [])
                if s.text.strip()
            ]
            sections.append(
                DraftSection(
                    title=section.title,
                    sentences=sentences,
                    gap=not pack.snippets and not sentences,
                )
            )
        return Draft(
            drafter=self.name, markdown=render_markdown(query, sections), sections=sections
        )
