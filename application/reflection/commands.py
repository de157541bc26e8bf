"""Inputs and outputs of reflection and review, validated once here for every surface."""

from datetime import datetime

import msgspec

from domain.errors import InvalidInputError
from domain.reasons import ReasonCode
from domain.reflection.candidates import (
    MAX_CANDIDATE_CHARS,
    CandidateType,
    ReflectionCandidate,
    Relation,
    ReviewAction,
    ReviewState,
    Span,
)
from domain.scopes import MemoryScope, ScopeRef

__all__ = [
    "MAX_PROPOSALS",
    "MAX_REFLECT_SOURCES",
    "CandidateList",
    "CandidateView",
    "PromotedRecord",
    "ProposeRequest",
    "ProposeResult",
    "ProposedCandidate",
    "ProposedRelation",
    "ProposedSpan",
    "ReflectRequest",
    "ReflectResult",
    "Refusal",
    "ReviewRequest",
    "ReviewResult",
    "SkippedSource",
    "space_text",
]

#: sources one reflect call reads (a space is read up to this many sources)
MAX_REFLECT_SOURCES = 200
#: candidates one propose call may carry
MAX_PROPOSALS = 50
MAX_SPANS = 20
EXTRACTORS = ("rules", "llm")


def space_text(ref: ScopeRef) -> str:
    """``scope`` or ``scope/key``: how a space is written in requests and answers."""
    return ref.scope if ref.scope_key is None else f"{ref.scope}/{ref.scope_key}"


def _named(what: str, ids: list[str]) -> None:
    """Every id names something: an empty one is a mistake in the request, not a lookup."""
    if any(not i.strip() for i in ids):
        raise InvalidInputError(ReasonCode.INVALID_REQUEST, f"{what}: an id may not be empty")


class ReflectRequest(msgspec.Struct, frozen=True, kw_only=True):
    org_id: str
    source_ids: list[str] = msgspec.field(default_factory=list)
    #: ``scope[/key]``: reflect on that space's sources instead of named ones
    space: str | None = None
    extractor: str = "rules"

    def validate(self) -> None:
        if bool(self.source_ids) == (self.space is not None):
            raise InvalidInputError(ReasonCode.INVALID_REQUEST, "give source_ids or space")
        if len(self.source_ids) > MAX_REFLECT_SOURCES:
            raise InvalidInputError(
                ReasonCode.LIMIT_OUT_OF_RANGE, f"at most {MAX_REFLECT_SOURCES} source ids"
            )
        _named("source_ids", self.source_ids)
        if self.extractor not in EXTRACTORS:
            raise InvalidInputError(ReasonCode.INVALID_REQUEST, "extractor must be rules or llm")


class ProposedSpan(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    source_id: str
    start: int
    end: int
    #: the cited characters; when given they must be exactly the source's
    quote: str | None = None


class ProposedRelation(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A relation as proposed: its rules are checked per candidate (a refusal), not while
    decoding, where a broken one would fail the whole request as malformed."""

    subject: str
    subject_type: CandidateType
    predicate: str
    object: str
    object_type: CandidateType

    def to_relation(self) -> Relation:
        """The domain's relation; ``ValueError`` names the rule it breaks."""
        return Relation(
            subject=self.subject,
            subject_type=self.subject_type,
            predicate=self.predicate,
            object=self.object,
            object_type=self.object_type,
        )


class ProposedCandidate(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: CandidateType
    text: str
    spans: list[ProposedSpan]
    confidence: float = 0.5
    relation: ProposedRelation | None = None
    #: where it should live once accepted; its sources' space when omitted
    suggested_scope: MemoryScope | None = None
    suggested_scope_key: str | None = None
    #: ids of promoted records it replaces: accepting it links them with SUPERSEDES
    supersedes: list[str] = msgspec.field(default_factory=list)


class ProposeRequest(msgspec.Struct, frozen=True, kw_only=True):
    org_id: str
    candidates: list[ProposedCandidate]

    def validate(self) -> None:
        if not 0 < len(self.candidates) <= MAX_PROPOSALS:
            raise InvalidInputError(
                ReasonCode.LIMIT_OUT_OF_RANGE, f"propose 1 to {MAX_PROPOSALS} candidates"
            )
        for candidate in self.candidates:
            _named("a span's source_id", [span.source_id for span in candidate.spans])
            _named("supersedes", candidate.supersedes)


class ReviewRequest(msgspec.Struct, frozen=True, kw_only=True):
    org_id: str
    candidate_id: str
    action: ReviewAction
    #: accept only: keep the records in this (broader) space instead of the suggested one
    promote_to_scope: MemoryScope | None = None
    scope_key: str | None = None
    #: accept only, optional: the token of a promotion preview; refused when stale
    preview_token: str | None = None

    def validate(self) -> None:
        if self.action is not ReviewAction.ACCEPT and (
            self.promote_to_scope is not None
            or self.scope_key is not None
            or self.preview_token is not None
        ):
            raise InvalidInputError(
                ReasonCode.INVALID_REQUEST,
                "only accept takes promote_to_scope, scope_key and preview_token",
            )
        if self.scope_key is not None and self.promote_to_scope is None:
            raise InvalidInputError(
                ReasonCode.INVALID_REQUEST, "scope_key goes with promote_to_scope"
            )


class CandidateView(msgspec.Struct, frozen=True, kw_only=True):
    """A candidate as surfaces show it (its text is the reader's own evidence)."""

    id: str
    type: CandidateType
    text: str
    source_ids: list[str]
    spans: list[Span]
    confidence: float
    state: ReviewState
    suggested_scope: str
    extractor: str
    extractor_version: str
    created_at: datetime
    relation: Relation | None = None
    sensitive: bool = False
    mixed_scope: bool = False
    reviewed_at: datetime | None = None
    promoted_ids: list[str] = msgspec.field(default_factory=list)
    promoted_scope: str | None = None
    replaces: str | None = None
    supersedes: list[str] = msgspec.field(default_factory=list)

    @classmethod
    def of(cls, c: ReflectionCandidate) -> "CandidateView":
        return cls(
            id=c.candidate_id,
            type=c.type,
            text=c.text,
            source_ids=list(c.source_ids),
            spans=list(c.spans),
            confidence=c.confidence,
            state=c.state,
            suggested_scope=space_text(c.suggested_scope),
            extractor=c.extractor,
            extractor_version=c.extractor_version,
            created_at=c.created_at,
            relation=c.relation,
            sensitive=c.sensitive,
            mixed_scope=c.mixed_scope,
            reviewed_at=c.reviewed_at,
            promoted_ids=list(c.promoted_ids),
            promoted_scope=None if c.promoted_scope is None else space_text(c.promoted_scope),
            replaces=c.replaces,
            supersedes=list(c.supersedes),
        )


class SkippedSource(msgspec.Struct, frozen=True, kw_only=True):
    """A named source reflection did not read: ``not_found`` also for one the caller may not
    read (so its existence is not confirmed), else the lifecycle reason."""

    source_id: str
    reason: ReasonCode


class ReflectResult(msgspec.Struct, frozen=True, kw_only=True):
    candidates: list[CandidateView]
    skipped: list[SkippedSource] = msgspec.field(default_factory=list)
    #: sources read
    sources: int = 0
    #: candidates the auto-accept rule promoted at once
    auto_accepted: int = 0


class Refusal(msgspec.Struct, frozen=True, kw_only=True):
    """Why one proposed candidate was refused (``index`` into the request's list)."""

    index: int
    reason: ReasonCode
    detail: str


class ProposeResult(msgspec.Struct, frozen=True, kw_only=True):
    candidates: list[CandidateView]
    refused: list[Refusal] = msgspec.field(default_factory=list)


class CandidateList(msgspec.Struct, frozen=True, kw_only=True):
    candidates: list[CandidateView]
    #: pass as ``after`` for the next page; None on the last one
    next_after: str | None = None


class PromotedRecord(msgspec.Struct, frozen=True, kw_only=True):
    """One native record an accept wrote: an entity or a ``relates_to`` edge."""

    id: str
    kind: str
    type: str
    source_ids: list[str]
    #: a ``supersedes`` edge: the older record it points to
    older_id: str | None = None


class ReviewResult(msgspec.Struct, frozen=True, kw_only=True):
    candidate: CandidateView
    promoted: list[PromotedRecord] = msgspec.field(default_factory=list)


def check_proposal_text(text: str) -> str | None:
    if not text.strip():
        return "text must contain visible characters"
    if len(text) > MAX_CANDIDATE_CHARS:
        return f"text is longer than {MAX_CANDIDATE_CHARS} characters"
    return None
