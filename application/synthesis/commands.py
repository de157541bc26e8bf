"""Inputs and outputs of the synthesis stages, validated once here for every surface."""

import msgspec

from application.memory.commands import _check_query
from application.synthesis.records import (
    Draft,
    DraftSection,
    Freshness,
    HiddenCounts,
    OutlineSection,
    SectionPack,
    UnsupportedClaim,
    Verification,
)
from domain.errors import InvalidInputError
from domain.reasons import ReasonCode
from domain.synthesis.outline import MAX_SECTIONS, OutputType
from domain.synthesis.verdict import VerificationStatus

__all__ = [
    "DraftResult",
    "PlanRequest",
    "PlanResult",
    "RememberedArtifact",
    "SectionsResult",
    "SynthesisResult",
    "VerifyResult",
    "verify_result",
]

#: source ids a plan may be restricted to
MAX_SOURCE_IDS = 500
_DRAFTERS = ("extractive", "llm")


class PlanRequest(msgspec.Struct, frozen=True, kw_only=True):
    org_id: str
    query: str
    output_type: OutputType = OutputType.OVERVIEW
    audience: str | None = None
    source_ids: list[str] = msgspec.field(default_factory=list)
    outline: list[str] | None = None
    freshness: Freshness = msgspec.field(default_factory=Freshness)

    def validate(self) -> None:
        _check_query(self.query)
        if len(self.source_ids) > MAX_SOURCE_IDS:
            raise InvalidInputError(
                ReasonCode.LIMIT_OUT_OF_RANGE, f"at most {MAX_SOURCE_IDS} source ids"
            )
        if self.outline is not None and not (
            0 < len(self.outline) <= MAX_SECTIONS
            and all(0 < len(t.strip()) <= 120 for t in self.outline)
        ):
            raise InvalidInputError(
                ReasonCode.INVALID_REQUEST,
                f"outline must list 1 to {MAX_SECTIONS} titles of 1 to 120 characters",
            )
        days = self.freshness.max_age_days
        if (days is not None and days < 1) or self.freshness.on_stale not in ("flag", "block"):
            raise InvalidInputError(
                ReasonCode.INVALID_REQUEST,
                "freshness takes max_age_days >= 1 and on_stale 'flag' or 'block'",
            )


def check_drafter(drafter: str) -> None:
    if drafter not in _DRAFTERS:
        raise InvalidInputError(ReasonCode.INVALID_REQUEST, "drafter must be extractive or llm")


class PlanResult(msgspec.Struct, frozen=True, kw_only=True):
    run_id: str
    query: str
    output_type: OutputType
    audience: str | None
    outline: list[OutlineSection]


class SectionsResult(msgspec.Struct, frozen=True, kw_only=True):
    run_id: str
    sections: list[SectionPack]


class DraftResult(msgspec.Struct, frozen=True, kw_only=True):
    run_id: str
    drafter: str
    markdown: str
    sections: list[DraftSection]

    @classmethod
    def of(cls, run_id: str, draft: Draft) -> "DraftResult":
        return cls(
            run_id=run_id, drafter=draft.drafter, markdown=draft.markdown, sections=draft.sections
        )


class VerifyResult(msgspec.Struct, frozen=True, kw_only=True):
    run_id: str
    status: VerificationStatus
    citation_coverage: float
    supported_share: float
    sentences: int
    unsupported_claims: list[UnsupportedClaim]
    gaps: list[str]
    hidden_counts: HiddenCounts
    stale_source_ids: list[str]


def verify_result(run_id: str, v: Verification) -> VerifyResult:
    return VerifyResult(
        run_id=run_id,
        status=v.status,
        citation_coverage=v.citation_coverage,
        supported_share=v.supported_share,
        sentences=v.sentences,
        unsupported_claims=v.unsupported_claims,
        gaps=v.gaps,
        hidden_counts=v.hidden_counts,
        stale_source_ids=v.stale_source_ids,
    )


class RememberedArtifact(msgspec.Struct, frozen=True, kw_only=True):
    run_id: str
    source_id: str
    text_hash: str
    status: VerificationStatus


class SynthesisResult(msgspec.Struct, frozen=True, kw_only=True):
    """Every stage at once (``POST /api/synthesize``)."""

    run_id: str
    plan: PlanResult
    sections: list[SectionPack]
    draft: DraftResult
    verification: VerifyResult
    artifact: RememberedArtifact | None = None
