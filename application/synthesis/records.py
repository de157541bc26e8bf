"""What a synthesis run is made of, stage by stage; a run is persisted after each stage.

Packs are stored as ids (chunk, source) with counts, never with memory text:
every later stage loads the text again from the store and re-checks it
under the policy, so a source hidden or redacted after ``sections`` never
reaches a draft. The draft's own text is stored: it is the generated
artifact the caller asked for, and ``verify`` checks it for leaks.
"""

from datetime import datetime

import msgspec

from domain.synthesis.bearing import LeftOutReason
from domain.synthesis.outline import OutputType
from domain.synthesis.verdict import VerificationStatus

__all__ = [
    "Draft",
    "DraftSection",
    "DraftSentence",
    "Freshness",
    "HiddenCounts",
    "LeftOut",
    "OutlineSection",
    "PackItem",
    "SectionPack",
    "Snippet",
    "StoredPack",
    "SynthesisRun",
    "UnsupportedClaim",
    "Verification",
]


class Freshness(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Sources older than ``max_age_days`` (by when they happened, else were stored) are stale;
    ``on_stale`` says whether a cited stale source blocks the document or is only flagged."""

    max_age_days: int | None = None
    on_stale: str = "flag"


class OutlineSection(msgspec.Struct, frozen=True, kw_only=True):
    title: str
    needs: str
    evidence_query: str
    #: sources the plan's retrieval expects to supply this section
    expected_source_ids: list[str] = msgspec.field(default_factory=list)


class PackItem(msgspec.Struct, frozen=True, kw_only=True):
    chunk_id: str
    source_id: str
    stale: bool = False


class StoredPack(msgspec.Struct, frozen=True, kw_only=True):
    """A section pack as persisted: ids and counts only."""

    title: str
    items: list[PackItem]
    hidden_count: int = 0
    denied_count: int = 0
    #: chunks relevant to the section that the audience may not read; never shown to callers,
    #: kept so ``verify`` can prove none of their text reached the draft
    hidden_chunk_ids: list[str] = msgspec.field(default_factory=list)
    reasons: list[str] = msgspec.field(default_factory=list)
    unresolved: list[str] = msgspec.field(default_factory=list)


class Snippet(msgspec.Struct, frozen=True, kw_only=True):
    source_id: str
    chunk_id: str
    text: str
    stale: bool = False
    occurred_at: datetime | None = None


class SectionPack(msgspec.Struct, frozen=True, kw_only=True):
    """A section pack as returned: the snippets this actor (and the audience) may read."""

    title: str
    source_ids: list[str]
    derived_ids: list[str]
    snippets: list[Snippet]
    hidden_count: int
    denied_count: int
    stale_source_ids: list[str]
    unresolved_claims: list[str]
    reasons: list[str]


class DraftSentence(msgspec.Struct, frozen=True, kw_only=True):
    text: str
    #: source ids of the section pack this sentence rests on
    citations: list[str] = msgspec.field(default_factory=list)


class LeftOut(msgspec.Struct, frozen=True, kw_only=True):
    """A source of a section's pack that gave the section no sentence, and why."""

    source_id: str
    reason: LeftOutReason
    #: the reason in words
    detail: str

    @classmethod
    def of(cls, source_id: str, reason: LeftOutReason) -> "LeftOut":
        return cls(source_id=source_id, reason=reason, detail=reason.words)


class DraftSection(msgspec.Struct, frozen=True, kw_only=True):
    title: str
    sentences: list[DraftSentence]
    #: nothing the audience may read supports this section
    gap: bool = False
    #: the pack's sources this section does not quote, each with its reason
    left_out: list[LeftOut] = msgspec.field(default_factory=list)


class Draft(msgspec.Struct, frozen=True, kw_only=True):
    drafter: str
    markdown: str
    sections: list[DraftSection]


class UnsupportedClaim(msgspec.Struct, frozen=True, kw_only=True):
    section: str
    sentence: str
    citations: list[str]
    #: uncited | cited_outside_pack | not_supported | off_topic_source
    reason: str


class HiddenCounts(msgspec.Struct, frozen=True, kw_only=True):
    hidden: int
    denied: int
    by_section: dict[str, int]


class Verification(msgspec.Struct, frozen=True, kw_only=True):
    status: VerificationStatus
    citation_coverage: float
    #: share of cited sentences every cited source supports
    supported_share: float
    sentences: int
    unsupported_claims: list[UnsupportedClaim]
    gaps: list[str]
    hidden_counts: HiddenCounts
    stale_source_ids: list[str]
    leaks: int
    checked_at: datetime


class SynthesisRun(msgspec.Struct, frozen=True, kw_only=True):
    run_id: str
    org_id: str
    actor_id: str
    created_at: datetime
    updated_at: datetime
    query: str
    output_type: OutputType
    #: "principal:<id>", "space:<scope>[/<key>]", or None (the actor alone)
    audience: str | None = None
    source_ids: list[str] = msgspec.field(default_factory=list)
    freshness: Freshness = msgspec.field(default_factory=Freshness)
    outline: list[OutlineSection] = msgspec.field(default_factory=list)
    packs: list[StoredPack] | None = None
    draft: Draft | None = None
    verification: Verification | None = None
    artifact_source_id: str | None = None
    #: source ids the artifact cites (for "which artifacts cite this source")
    cited_source_ids: list[str] = msgspec.field(default_factory=list)
