"""Reflection candidates: invariants, the review state machine and the auto-accept rule."""

import re
from datetime import UTC, datetime

import msgspec
import pytest

from domain.reflection.candidates import (
    AUTO_ACCEPT_MIN_CONFIDENCE,
    MAX_CANDIDATE_CHARS,
    CandidateType,
    Extracted,
    ReflectionCandidate,
    Relation,
    ReviewAction,
    ReviewState,
    Span,
    auto_accept_problem,
    review_transition,
)
from domain.scopes import MemoryScope, ScopeRef

T0 = datetime(2026, 3, 1, tzinfo=UTC)
ALICE = ScopeRef(MemoryScope.PRIVATE, "alice")
PROJECT = ScopeRef(MemoryScope.PROJECT, "alpha")


def candidate(**changes: object) -> ReflectionCandidate:
    base = ReflectionCandidate(
        candidate_id="c1",
        org_id="org",
        type=CandidateType.DECISION,
        text="We decided to use SurrealDB.",
        source_ids=("s1",),
        source_hashes={"s1": "h1"},
        spans=(Span(source_id="s1", start=0, end=28),),
        extractor="rules",
        extractor_version="1",
        confidence=0.95,
        suggested_scope=ALICE,
        input_scopes=(ALICE,),
        created_by="alice",
        created_at=T0,
    )
    return msgspec.structs.replace(base, **changes)


def test_review_state_machine() -> None:
    P, A, R, D = (
        ReviewState.PENDING,
        ReviewState.ACCEPTED,
        ReviewState.REJECTED,
        ReviewState.DEFERRED,
    )
    assert review_transition(P, ReviewAction.ACCEPT) is A
    assert review_transition(P, ReviewAction.REJECT) is R
    assert review_transition(P, ReviewAction.DEFER) is D
    assert review_transition(D, ReviewAction.ACCEPT) is A
    assert review_transition(D, ReviewAction.REJECT) is R
    assert review_transition(D, ReviewAction.DEFER) is None
    for final in (A, R):
        for action in ReviewAction:
            assert review_transition(final, action) is None


_RELATION = Relation(
    subject="Maya",
    subject_type=CandidateType.PERSON,
    predicate="decided",
    object="x",
    object_type=CandidateType.DECISION,
)


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"text": "  "}, "a candidate has text"),
        (
            {"text": "x" * (MAX_CANDIDATE_CHARS + 1)},
            f"a candidate is at most {MAX_CANDIDATE_CHARS} characters",
        ),
        ({"confidence": 1.5}, "confidence is between 0 and 1"),
        ({"confidence": -0.1}, "confidence is between 0 and 1"),
        ({"source_ids": ()}, "a candidate cites one or more distinct sources"),
        ({"source_ids": ("s1", "s1")}, "a candidate cites one or more distinct sources"),
        ({"source_hashes": {}}, "a candidate keeps one content hash per source"),
        (
            {"spans": (Span(source_id="other", start=0, end=1),)},
            "every span points into one of the candidate's sources",
        ),
        ({"input_scopes": ()}, "a candidate records the spaces of its sources"),
        # accepted without promoted records, or promoted records on a pending one
        (
            {"state": ReviewState.ACCEPTED, "reviewed_by": "alice"},
            "exactly the accepted candidates name their promoted records",
        ),
        (
            {"promoted_ids": ("e1",), "promoted_scope": ALICE},
            "exactly the accepted candidates name their promoted records",
        ),
        (
            {"promoted_ids": ("e1",), "state": ReviewState.ACCEPTED, "reviewed_by": "a"},
            "promoted records have a scope, and only they do",
        ),
        ({"promoted_scope": ALICE}, "promoted records have a scope, and only they do"),
        # reviewed without a reviewer, pending with one
        (
            {"state": ReviewState.REJECTED},
            "a reviewed candidate names its reviewer, a pending one none",
        ),
        ({"reviewed_by": "alice"}, "a reviewed candidate names its reviewer, a pending one none"),
        # a relation only on relationships, and always there
        (
            {"type": CandidateType.RELATIONSHIP},
            "exactly the relationship candidates carry a relation",
        ),
        ({"relation": _RELATION}, "exactly the relationship candidates carry a relation"),
        # only a statement replaces or supersedes older memory
        ({"replaces": " "}, "a statement, not a relationship, names a non-empty replaced thing"),
        (
            {"type": CandidateType.RELATIONSHIP, "relation": _RELATION, "replaces": "x"},
            "a statement, not a relationship, names a non-empty replaced thing",
        ),
        (
            {"type": CandidateType.RELATIONSHIP, "relation": _RELATION, "supersedes": ("e0",)},
            "a statement, not a relationship, supersedes records",
        ),
    ],
)
def test_invalid_candidates_cannot_be_built(changes: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        candidate(**changes)


def test_confidence_bounds_and_a_replaced_thing_are_allowed() -> None:
    assert candidate(confidence=0.0).confidence == 0.0
    assert candidate(confidence=1.0).confidence == 1.0
    assert candidate(replaces="SurrealDB 2", supersedes=("e0",)).replaces == "SurrealDB 2"
    assert candidate(text="x" * MAX_CANDIDATE_CHARS).text


def test_a_valid_accepted_candidate() -> None:
    done = candidate(
        state=ReviewState.ACCEPTED,
        reviewed_by="alice",
        reviewed_at=T0,
        promoted_ids=("e1",),
        promoted_scope=ALICE,
    )
    assert done.state is ReviewState.ACCEPTED and not done.mixed_scope


@pytest.mark.parametrize(("start", "end"), [(-1, 3), (3, 3), (4, 2)])
def test_spans_are_non_empty_ranges(start: int, end: int) -> None:
    with pytest.raises(ValueError, match=r"^a span is a non-empty range with start >= 0$"):
        Span(source_id="s1", start=start, end=end)
    with pytest.raises(ValueError, match=r"^a span names its source$"):
        Span(source_id="", start=0, end=1)
    assert Span(source_id="s1", start=0, end=1).end == 1


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"subject": " "}, "a relation names its subject and object"),
        ({"object": ""}, "a relation names its subject and object"),
        ({"predicate": "Has Spaces"}, "a predicate is a lowercase word (letters and _)"),
        ({"predicate": "x" * 41}, "a predicate is a lowercase word (letters and _)"),
        (
            {"object_type": CandidateType.RELATIONSHIP},
            "a relation links two things, not two relations",
        ),
        (
            {"subject_type": CandidateType.RELATIONSHIP},
            "a relation links two things, not two relations",
        ),
    ],
)
def test_relations_are_checked(kw: dict[str, object], message: str) -> None:
    fields: dict[str, object] = {
        "subject": "Maya",
        "subject_type": CandidateType.PERSON,
        "predicate": "decided",
        "object": "go with it",
        "object_type": CandidateType.DECISION,
        **kw,
    }
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        Relation(**fields)  # type: ignore[arg-type]


def test_extracted_is_checked_like_a_candidate() -> None:
    with pytest.raises(ValueError, match=r"^a candidate has text$"):
        Extracted(type=CandidateType.TASK, text="", spans=(), confidence=0.5)
    with pytest.raises(ValueError, match=r"^confidence is between 0 and 1$"):
        Extracted(type=CandidateType.TASK, text="do it", spans=(), confidence=2)
    with pytest.raises(ValueError, match=r"relationship candidates carry a relation$"):
        Extracted(type=CandidateType.RELATIONSHIP, text="do it", spans=(), confidence=0.5)
    with pytest.raises(ValueError, match=r"names a non-empty replaced thing$"):
        Extracted(type=CandidateType.TASK, text="do it", spans=(), confidence=0.5, replaces="")
    with pytest.raises(ValueError, match=r"names a non-empty replaced thing$"):
        Extracted(
            type=CandidateType.RELATIONSHIP,
            text="Maya decided x",
            spans=(),
            confidence=0.5,
            relation=_RELATION,
            replaces="y",
        )


TRUSTED = frozenset({"rules"})


def test_auto_accept_takes_a_safe_same_scope_candidate_of_a_trusted_extractor() -> None:
    assert auto_accept_problem(candidate(), TRUSTED) is None
    edge = candidate(confidence=AUTO_ACCEPT_MIN_CONFIDENCE)
    assert auto_accept_problem(edge, TRUSTED) is None


@pytest.mark.parametrize(
    ("changes", "trusted", "why"),
    [
        ({}, frozenset(), "extractor not trusted"),
        ({"extractor": "caller"}, TRUSTED, "extractor not trusted"),
        ({"confidence": 0.89}, TRUSTED, "confidence below the auto-accept threshold"),
        ({"sensitive": True}, TRUSTED, "sensitive source"),
        ({"contradicts": ("c0",)}, TRUSTED, "contradicts accepted memory"),
        ({"suggested_scope": PROJECT}, TRUSTED, "crosses a scope"),
        (
            {
                "source_ids": ("s1", "s2"),
                "source_hashes": {"s1": "h", "s2": "h"},
                "input_scopes": (ALICE, PROJECT),
            },
            TRUSTED,
            "crosses a scope",
        ),
        ({"state": ReviewState.DEFERRED, "reviewed_by": "alice"}, TRUSTED, "not pending"),
    ],
)
def test_auto_accept_leaves_the_rest_to_a_person(
    changes: dict[str, object], trusted: frozenset[str], why: str
) -> None:
    assert auto_accept_problem(candidate(**changes), trusted) == why
