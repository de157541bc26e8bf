"""Output types and their section templates: what a document of each type asks memory for.

A plan is deterministic: the same query, type and override give the same
sections in the same order, each with the evidence query retrieval will run
(the seed query plus the section's cue words). Templates are documented
here and in the README, so a reader can tell why a section exists.

- overview: Summary, Components, How it works, Decisions, Open questions
- brief: Summary, Key points, Next steps
- release-notes: Highlights, Changes, Fixes, Known issues
"""

from enum import StrEnum

import msgspec

__all__ = [
    "MAX_SECTIONS",
    "TEMPLATES",
    "OutputType",
    "PlannedSection",
    "SectionTemplate",
    "plan_sections",
]

#: an outline override may name at most this many sections
MAX_SECTIONS = 12
_MAX_TITLE = 120


class OutputType(StrEnum):
    OVERVIEW = "overview"
    BRIEF = "brief"
    RELEASE_NOTES = "release-notes"


class SectionTemplate(msgspec.Struct, frozen=True, kw_only=True):
    title: str
    #: words added to the seed query to find this section's evidence ("" = the query alone)
    cue: str
    #: what the section must say, shown to an LLM drafter and in the outline
    needs: str


def _t(title: str, cue: str, needs: str) -> SectionTemplate:
    return SectionTemplate(title=title, cue=cue, needs=needs)


TEMPLATES: dict[OutputType, tuple[SectionTemplate, ...]] = {
    OutputType.OVERVIEW: (
        _t("Summary", "", "what the topic is and why it matters"),
        _t("Components", "components parts design architecture", "the parts and how they fit"),
        _t("How it works", "works process flow steps uses", "how the parts work together"),
        _t("Decisions", "decided decision chose agreed because", "decisions taken and why"),
        _t("Open questions", "problem issue question bug todo unclear", "what is unresolved"),
    ),
    OutputType.BRIEF: (
        _t("Summary", "", "the topic in a few sentences"),
        _t("Key points", "important key decided changed", "the facts a reader needs"),
        _t("Next steps", "next plan todo will should", "what happens next"),
    ),
    OutputType.RELEASE_NOTES: (
        _t("Highlights", "new release added", "the most notable changes"),
        _t("Changes", "changed added removed updated", "what changed"),
        _t("Fixes", "fixed fix bug regression", "what was fixed"),
        _t("Known issues", "known issue problem broken workaround", "what is still wrong"),
    ),
}


class PlannedSection(msgspec.Struct, frozen=True, kw_only=True):
    title: str
    needs: str
    #: the query retrieval runs for this section's evidence
    evidence_query: str

    def __post_init__(self) -> None:
        if not self.title.strip() or len(self.title) > _MAX_TITLE:
            raise ValueError(f"a section title must have 1 to {_MAX_TITLE} characters")


def plan_sections(
    query: str, output_type: OutputType, outline: list[str] | None = None
) -> list[PlannedSection]:
    """The sections of a document on ``query``: the type's template, or the caller's titles."""
    if outline:
        if len(outline) > MAX_SECTIONS:
            raise ValueError(f"an outline has at most {MAX_SECTIONS} sections")
        return [
            PlannedSection(
                title=title.strip(),
                needs=f"what memory says about {title.strip()}",
                evidence_query=f"{query} {title.strip()}",
            )
            for title in outline
        ]
    return [
        PlannedSection(
            title=t.title,
            needs=t.needs,
            evidence_query=f"{query} {t.cue}".strip(),
        )
        for t in TEMPLATES[output_type]
    ]
