"""Reflection candidates: what an extractor proposes, and the review that decides its fate.

A candidate is not memory yet. It names what it is (a decision, a task, a
person ...), the raw sources and the character spans that support it, who
proposed it (extractor and version), how sure that was (confidence), and
where it would live (suggested scope). A person, or the documented
auto-accept rule (``auto_accept_problem``), accepts, rejects or defers it;
only an accepted candidate becomes native graph records.
"""

import re
from datetime import datetime
from enum import StrEnum

import msgspec

from domain.scopes import ScopeRef

__all__ = [
    "AUTO_ACCEPT_MIN_CONFIDENCE",
    "MAX_CANDIDATE_CHARS",
    "CandidateType",
    "Extracted",
    "ReflectionCandidate",
    "Relation",
    "ReviewAction",
    "ReviewState",
    "Span",
    "auto_accept_problem",
    "review_transition",
]

#: a candidate states one thing: a sentence or two, never a document
MAX_CANDIDATE_CHARS = 1000
#: the auto-accept rule takes only candidates at least this sure
AUTO_ACCEPT_MIN_CONFIDENCE = 0.9
_PREDICATE = re.compile(r"^[a-z][a-z_]{0,39}$")


class CandidateType(StrEnum):
    DECISION = "decision"
    PROCEDURE = "procedure"
    TASK = "task"
    PREFERENCE = "preference"
    FACT = "fact"
    ARTIFACT = "artifact"
    PERSON = "person"
    PROJECT = "project"
    #: a dated happening ("the launch is on 2026-04-02")
    EVENT = "event"
    ENTITY = "entity"
    #: a typed link between two other things (``relation`` says which)
    RELATIONSHIP = "relationship"


class ReviewState(StrEnum):
    PENDING = "pending"
    ACCEPTED = "accepted"
    REJECTED = "rejected"
    DEFERRED = "deferred"


class ReviewAction(StrEnum):
    ACCEPT = "accept"
    REJECT = "reject"
    DEFER = "defer"


#: the review state machine: accepted and rejected are final; a deferred candidate
#: waits for a later accept or reject (deferring it again changes nothing, so is refused)
_TRANSITIONS: dict[ReviewState, dict[ReviewAction, ReviewState]] = {
    ReviewState.PENDING: {
        ReviewAction.ACCEPT: ReviewState.ACCEPTED,
        ReviewAction.REJECT: ReviewState.REJECTED,
        ReviewAction.DEFER: ReviewState.DEFERRED,
    },
    ReviewState.DEFERRED: {
        ReviewAction.ACCEPT: ReviewState.ACCEPTED,
        ReviewAction.REJECT: ReviewState.REJECTED,
    },
    ReviewState.ACCEPTED: {},
    ReviewState.REJECTED: {},
}


def review_transition(state: ReviewState, action: ReviewAction) -> ReviewState | None:
    """The state ``action`` leads to from ``state``, or None when the machine forbids it."""
    return _TRANSITIONS[state].get(action)


class Span(msgspec.Struct, frozen=True, kw_only=True):
    """Characters ``[start, end)`` of one source's content: the evidence, never a copy of it."""

    source_id: str
    start: int
    end: int

    def __post_init__(self) -> None:
        if not self.source_id:
            raise ValueError("a span names its source")
        if not 0 <= self.start < self.end:
            raise ValueError("a span is a non-empty range with start >= 0")


class Relation(msgspec.Struct, frozen=True, kw_only=True):
    """A relationship candidate's parts: ``subject -predicate-> object``, each typed."""

    subject: str
    subject_type: CandidateType
    predicate: str
    object: str
    object_type: CandidateType

    def __post_init__(self) -> None:
        if not self.subject.strip() or not self.object.strip():
            raise ValueError("a relation names its subject and object")
        if not _PREDICATE.match(self.predicate):
            raise ValueError("a predicate is a lowercase word (letters and _)")
        if CandidateType.RELATIONSHIP in (self.subject_type, self.object_type):
            raise ValueError("a relation links two things, not two relations")


def _check_confidence(confidence: float) -> None:
    if not 0.0 <= confidence <= 1.0:
        raise ValueError("confidence is between 0 and 1")


def _check_text(text: str) -> None:
    if not text.strip():
        raise ValueError("a candidate has text")
    if len(text) > MAX_CANDIDATE_CHARS:
        raise ValueError(f"a candidate is at most {MAX_CANDIDATE_CHARS} characters")


def _check_replaces(kind: CandidateType, replaces: str | None) -> None:
    if replaces is not None and (not replaces.strip() or kind is CandidateType.RELATIONSHIP):
        raise ValueError("a statement, not a relationship, names a non-empty replaced thing")


def _check_relation(kind: CandidateType, relation: Relation | None) -> None:
    if (kind is CandidateType.RELATIONSHIP) != (relation is not None):
        raise ValueError("exactly the relationship candidates carry a relation")


class Extracted(msgspec.Struct, frozen=True, kw_only=True):
    """What an extractor finds in one source: no id, no review yet."""

    type: CandidateType
    text: str
    spans: tuple[Span, ...]
    confidence: float
    relation: Relation | None = None
    #: the older thing it says it replaces, as written ("instead of SurrealDB" -> "SurrealDB")
    replaces: str | None = None

    def __post_init__(self) -> None:
        _check_text(self.text)
        _check_confidence(self.confidence)
        _check_relation(self.type, self.relation)
        _check_replaces(self.type, self.replaces)


class ReflectionCandidate(msgspec.Struct, frozen=True, kw_only=True):
    """A proposed piece of derived memory, with its evidence and its review state.

    ``source_hashes`` are the content hashes of the sources when it was
    proposed: promotion refuses a candidate whose source has changed since.
    ``sensitive``: one of its sources is sensitive; ``contradicts``: ids of
    accepted candidates it disagrees with. Either keeps it from auto-accept.
    ``replaces``: the older thing its text says it replaces (an extractor's
    cue); ``supersedes``: ids of promoted records it replaces (named by whoever
    proposed it). Accepting it links them with ``SUPERSEDES``; either keeps it
    from auto-accept too, since it changes what older memory means.
    """

    candidate_id: str
    org_id: str
    type: CandidateType
    text: str
    source_ids: tuple[str, ...]
    source_hashes: dict[str, str]
    spans: tuple[Span, ...]
    extractor: str
    extractor_version: str
    confidence: float
    state: ReviewState = ReviewState.PENDING
    suggested_scope: ScopeRef
    #: the spaces of its sources when proposed (one for a single-space candidate)
    input_scopes: tuple[ScopeRef, ...]
    created_by: str
    created_at: datetime
    relation: Relation | None = None
    sensitive: bool = False
    contradicts: tuple[str, ...] = ()
    reviewed_by: str | None = None
    reviewed_at: datetime | None = None
    #: what accepting it made: the native records' ids and their scope
    promoted_ids: tuple[str, ...] = ()
    promoted_scope: ScopeRef | None = None
    replaces: str | None = None
    supersedes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _check_text(self.text)
        _check_confidence(self.confidence)
        _check_relation(self.type, self.relation)
        _check_replaces(self.type, self.replaces)
        if self.supersedes and self.type is CandidateType.RELATIONSHIP:
            raise ValueError("a statement, not a relationship, supersedes records")
        if not self.source_ids or len(set(self.source_ids)) != len(self.source_ids):
            raise ValueError("a candidate cites one or more distinct sources")
        if set(self.source_hashes) != set(self.source_ids):
            raise ValueError("a candidate keeps one content hash per source")
        if any(span.source_id not in self.source_ids for span in self.spans):
            raise ValueError("every span points into one of the candidate's sources")
        if not self.input_scopes:
            raise ValueError("a candidate records the spaces of its sources")
        if (self.state is ReviewState.ACCEPTED) != bool(self.promoted_ids):
            raise ValueError("exactly the accepted candidates name their promoted records")
        if (self.promoted_scope is None) == bool(self.promoted_ids):
            raise ValueError("promoted records have a scope, and only they do")
        if (self.state is ReviewState.PENDING) != (self.reviewed_by is None):
            raise ValueError("a reviewed candidate names its reviewer, a pending one none")

    @property
    def mixed_scope(self) -> bool:
        """Its sources live in more than one space."""
        return len(set(self.input_scopes)) > 1


def auto_accept_problem(candidate: ReflectionCandidate, trusted: frozenset[str]) -> str | None:
    """Why the candidate must wait for a person, or None when it may be accepted at once.

    The rule (README "Derived memory"): a pending candidate from a trusted
    extractor, at least ``AUTO_ACCEPT_MIN_CONFIDENCE`` sure, drawn from one
    space and kept in that very space, from no sensitive source, contradicting
    and replacing nothing. Everything else (sensitive, contradictory, replacing,
    scope-crossing, a caller's own proposal) waits for a reviewer.
    """
    if candidate.state is not ReviewState.PENDING:
        return "not pending"
    if candidate.extractor not in trusted:
        return "extractor not trusted"
    if candidate.confidence < AUTO_ACCEPT_MIN_CONFIDENCE:
        return "confidence below the auto-accept threshold"
    if candidate.sensitive:
        return "sensitive source"
    if candidate.contradicts:
        return "contradicts accepted memory"
    if candidate.replaces or candidate.supersedes:
        return "replaces accepted memory"
    if candidate.mixed_scope or candidate.suggested_scope != candidate.input_scopes[0]:
        return "crosses a scope"
    return None
