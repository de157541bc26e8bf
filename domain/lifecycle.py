"""The lifecycle rule, in one place (docs/design.md#lifecycle).

A source is in one of six states (active, hidden, redacted, superseded,
duplicate, deleted) and may carry marks that change how it is used (wrong,
stale, sensitive). This module owns both halves of the rule:

- which corrections may move a source from one state to another (``plan``),
  and which of them can be undone (``REVERSIBLE``);
- what each state and mark means for each purpose (``MEANING``): recall
  (search and packs), inspect by the owner or an admin, inspect by others,
  synthesis.

The store, both index backends and the policy take their answers from here:
an index row carries a *recall key* (``recall_key``), and a caller's
candidate filter admits the keys ``admitted_keys`` gives it, so no adapter
spells out which states are readable.
"""

from collections.abc import Iterable
from enum import StrEnum

import msgspec

from domain.reasons import ReasonCode
from domain.scopes import LifecycleState

__all__ = [
    "MEANING",
    "RECALL_CLOSED",
    "RECALL_OPEN",
    "REVERSIBLE",
    "CorrectionAction",
    "Exposure",
    "Mark",
    "Purpose",
    "Transition",
    "admitted_keys",
    "demoted",
    "exposure",
    "owner_key",
    "plan",
    "recall_key",
    "recall_reason",
]


class Mark(StrEnum):
    """Marks change how an otherwise readable source is used; they never hide its state."""

    WRONG = "wrong"
    STALE = "stale"
    SENSITIVE = "sensitive"


class CorrectionAction(StrEnum):
    MARK_WRONG = "mark_wrong"
    MARK_STALE = "mark_stale"
    MARK_SENSITIVE = "mark_sensitive"
    MARK_DUPLICATE = "mark_duplicate"
    SUPERSEDE = "supersede"
    HIDE = "hide"
    REDACT = "redact"
    RESTORE = "restore"
    DELETE = "delete"


class Purpose(StrEnum):
    RECALL = "recall"  # search and context packs
    INSPECT_OWNER = "inspect_owner"  # the source's owner or an organisation admin
    INSPECT_OTHER = "inspect_other"  # anyone else who may read the space
    SYNTHESIS = "synthesis"


class Exposure(StrEnum):
    """How much of a source a purpose gets."""

    TEXT = "text"  # as it is (for others: as the space's policy allows)
    FLAGGED = "flagged"  # returned, ranked below fresh evidence and flagged
    OWNER_ONLY = "owner_only"  # the text to its owner; metadata to admins; nothing to others
    IF_REPLACEMENT_VISIBLE = "if_replacement_visible"  # history, ranked below its replacement
    COLLAPSED = "collapsed"  # under its canonical source
    METADATA = "metadata"  # ids, states and dates; never the text
    SUMMARY = "summary"  # the replacement summary written when it was redacted
    TOMBSTONE = "tombstone"  # ids, hashes, who, when, why
    WITHHELD = "withheld"  # counted as withheld memory, never its text
    NOTHING = "nothing"


_E = Exposure
_R, _IO, _IX, _S = Purpose.RECALL, Purpose.INSPECT_OWNER, Purpose.INSPECT_OTHER, Purpose.SYNTHESIS

#: docs/design.md#lifecycle, row by row: what each state and mark means for each purpose
MEANING: dict[LifecycleState | Mark, dict[Purpose, Exposure]] = {
    LifecycleState.ACTIVE: {_R: _E.TEXT, _IO: _E.TEXT, _IX: _E.TEXT, _S: _E.TEXT},
    Mark.STALE: {_R: _E.FLAGGED, _IO: _E.TEXT, _IX: _E.TEXT, _S: _E.FLAGGED},
    Mark.SENSITIVE: {_R: _E.OWNER_ONLY, _IO: _E.OWNER_ONLY, _IX: _E.METADATA, _S: _E.OWNER_ONLY},
    Mark.WRONG: {_R: _E.NOTHING, _IO: _E.TEXT, _IX: _E.METADATA, _S: _E.NOTHING},
    LifecycleState.SUPERSEDED: {
        _R: _E.IF_REPLACEMENT_VISIBLE,
        _IO: _E.TEXT,
        _IX: _E.TEXT,
        _S: _E.FLAGGED,
    },
    LifecycleState.DUPLICATE: {_R: _E.COLLAPSED, _IO: _E.TEXT, _IX: _E.TEXT, _S: _E.COLLAPSED},
    LifecycleState.HIDDEN: {_R: _E.NOTHING, _IO: _E.OWNER_ONLY, _IX: _E.NOTHING, _S: _E.WITHHELD},
    LifecycleState.REDACTED: {
        _R: _E.WITHHELD,
        _IO: _E.SUMMARY,
        _IX: _E.NOTHING,
        _S: _E.WITHHELD,
    },
    LifecycleState.DELETED: {_R: _E.NOTHING, _IO: _E.TOMBSTONE, _IX: _E.NOTHING, _S: _E.NOTHING},
}

#: the strictest first: when several apply, the first one of these that is present wins
_PRECEDENCE: tuple[LifecycleState | Mark, ...] = (
    LifecycleState.DELETED,
    LifecycleState.REDACTED,
    LifecycleState.HIDDEN,
    Mark.WRONG,
    Mark.SENSITIVE,
    LifecycleState.SUPERSEDED,
    LifecycleState.DUPLICATE,
    Mark.STALE,
    LifecycleState.ACTIVE,
)

#: a source in these states shows no text to anyone in recall
_NO_RECALL = frozenset({_E.NOTHING, _E.WITHHELD})

RECALL_OPEN = "open"
RECALL_CLOSED = "closed"
_OWNER_PREFIX = "owner:"

_WITHHELD_REASONS: dict[LifecycleState | Mark, ReasonCode] = {
    LifecycleState.HIDDEN: ReasonCode.HIDDEN_SOURCE,
    LifecycleState.REDACTED: ReasonCode.REDACTED_SOURCE,
    LifecycleState.DELETED: ReasonCode.SOURCE_DELETED,
    Mark.WRONG: ReasonCode.SOURCE_MARKED_WRONG,
    Mark.SENSITIVE: ReasonCode.SENSITIVE_SOURCE,
}


#: states whose row governs alone: marks speak only while the state still lets the source be read
_TERMINAL = (LifecycleState.DELETED, LifecycleState.REDACTED, LifecycleState.HIDDEN)

#: the strictest exposure first: where several rows apply, each purpose gets the strictest
#: of theirs (a row order alone let "wrong" show an admin the text "sensitive" keeps owner-only)
_STRICTNESS: tuple[Exposure, ...] = (
    Exposure.NOTHING,
    Exposure.WITHHELD,
    Exposure.TOMBSTONE,
    Exposure.SUMMARY,
    Exposure.METADATA,
    Exposure.OWNER_ONLY,
    Exposure.COLLAPSED,
    Exposure.IF_REPLACEMENT_VISIBLE,
    Exposure.FLAGGED,
    Exposure.TEXT,
)


def _governing(state: LifecycleState, marks: Iterable[Mark], purpose: Purpose) -> Exposure:
    if state in _TERMINAL:
        return MEANING[state][purpose]
    present: set[LifecycleState | Mark] = {state, *marks}
    return min((MEANING[row][purpose] for row in present), key=_STRICTNESS.index)


def exposure(state: LifecycleState, marks: Iterable[Mark], purpose: Purpose) -> Exposure:
    """What ``purpose`` gets of a source in ``state`` with ``marks`` (the strictest row wins)."""
    return _governing(state, marks, purpose)


def recall_reason(
    state: LifecycleState, marks: Iterable[Mark] = (), *, owner: bool = False
) -> ReasonCode:
    """ALLOWED when search and packs may return the source's text to this caller."""
    marks = frozenset(marks)
    for row in _PRECEDENCE:
        if row not in {state, *marks}:
            continue
        rule = MEANING[row][Purpose.RECALL]
        if rule in _NO_RECALL or (rule is Exposure.OWNER_ONLY and not owner):
            return _WITHHELD_REASONS[row]
    return ReasonCode.ALLOWED


def owner_key(principal_id: str) -> str:
    return _OWNER_PREFIX + principal_id


def recall_key(state: LifecycleState, marks: Iterable[Mark], owner: str | None) -> str:
    """What an index row carries: open to every reader, to its owner only, or closed."""
    marks = frozenset(marks)
    if recall_reason(state, marks, owner=True) is not ReasonCode.ALLOWED:
        return RECALL_CLOSED
    if recall_reason(state, marks, owner=False) is not ReasonCode.ALLOWED:
        return owner_key(owner) if owner else RECALL_CLOSED
    return RECALL_OPEN


def admitted_keys(owners: Iterable[str]) -> frozenset[str]:
    """The recall keys a caller's candidate filter admits: open rows and rows it owns."""
    return frozenset({RECALL_OPEN, *(owner_key(o) for o in owners if o)})


def demoted(state: LifecycleState, marks: Iterable[Mark]) -> bool:
    """Recalled, but ranked below fresh evidence (stale) or below its replacement."""
    lowered = {Exposure.FLAGGED, Exposure.IF_REPLACEMENT_VISIBLE}
    rows: set[LifecycleState | Mark] = {state, *marks}
    return any(MEANING[row][Purpose.RECALL] in lowered for row in rows)


# -- the state machine ------------------------------------------------------------------

_S_ = LifecycleState
_READABLE = frozenset({_S_.ACTIVE, _S_.SUPERSEDED, _S_.DUPLICATE})
_MARK_OF = {
    CorrectionAction.MARK_WRONG: Mark.WRONG,
    CorrectionAction.MARK_STALE: Mark.STALE,
    CorrectionAction.MARK_SENSITIVE: Mark.SENSITIVE,
}
#: the states each action may start from
_FROM: dict[CorrectionAction, frozenset[LifecycleState]] = {
    **{action: _READABLE for action in _MARK_OF},
    CorrectionAction.MARK_DUPLICATE: frozenset({_S_.ACTIVE}),
    CorrectionAction.SUPERSEDE: frozenset({_S_.ACTIVE, _S_.DUPLICATE}),
    CorrectionAction.HIDE: _READABLE,
    CorrectionAction.REDACT: frozenset(set(_S_) - {_S_.REDACTED, _S_.DELETED}),
    CorrectionAction.RESTORE: frozenset(set(_S_) - {_S_.REDACTED, _S_.DELETED}),
    CorrectionAction.DELETE: frozenset(set(_S_) - {_S_.DELETED}),
}
_TO: dict[CorrectionAction, LifecycleState] = {
    CorrectionAction.MARK_DUPLICATE: _S_.DUPLICATE,
    CorrectionAction.SUPERSEDE: _S_.SUPERSEDED,
    CorrectionAction.HIDE: _S_.HIDDEN,
    CorrectionAction.REDACT: _S_.REDACTED,
    CorrectionAction.RESTORE: _S_.ACTIVE,
    CorrectionAction.DELETE: _S_.DELETED,
}

#: the actions a later ``restore`` can undo
REVERSIBLE = frozenset(set(CorrectionAction) - {CorrectionAction.REDACT, CorrectionAction.DELETE})


class Transition(msgspec.Struct, frozen=True, kw_only=True):
    """The outcome of planning one correction: the resulting state, or why it is refused."""

    allowed: bool
    reason: ReasonCode
    state: LifecycleState
    marks: frozenset[Mark]
    reversible: bool


def plan(action: CorrectionAction, state: LifecycleState, marks: Iterable[Mark] = ()) -> Transition:
    """Where ``action`` takes a source in ``state`` with ``marks``; refused when not allowed.

    A mark already present, and a restore of an active source without marks,
    change nothing and are refused as well: a correction always changes something.
    """
    marks = frozenset(marks)
    reversible = action in REVERSIBLE
    refused = Transition(
        allowed=False,
        reason=ReasonCode.TRANSITION_NOT_ALLOWED,
        state=state,
        marks=marks,
        reversible=reversible,
    )
    if state not in _FROM[action]:
        return refused
    mark = _MARK_OF.get(action)
    if mark is not None:
        if mark in marks:
            return refused
        new_state, new_marks = state, marks | {mark}
    elif action is CorrectionAction.RESTORE:
        if state is _S_.ACTIVE and not marks:
            return refused
        new_state, new_marks = _S_.ACTIVE, frozenset()
    else:
        new_state, new_marks = _TO[action], marks
    return Transition(
        allowed=True,
        reason=ReasonCode.ALLOWED,
        state=new_state,
        marks=new_marks,
        reversible=reversible,
    )
