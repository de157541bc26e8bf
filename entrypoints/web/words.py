"""The words pages use: actions, states and spaces as a person says them.

Why one module: every page names corrections and lifecycle states the same
way, and a space is chosen from one select whose values parse in one place.
"""

from domain.errors import InvalidInputError
from domain.lifecycle import CorrectionAction
from domain.reasons import ReasonCode
from domain.scopes import MemoryScope, SourceType

__all__ = [
    "ACTION_LABELS",
    "ACTION_WORDS",
    "BADGE_TONES",
    "DESTRUCTIVE",
    "KIND_WORDS",
    "SCOPE_WORDS",
    "parse_space",
    "space_value",
]

ACTION_LABELS = {
    CorrectionAction.MARK_WRONG: "Mark as wrong",
    CorrectionAction.MARK_STALE: "Mark as stale",
    CorrectionAction.MARK_SENSITIVE: "Mark as sensitive",
    CorrectionAction.MARK_DUPLICATE: "Mark as a duplicate of another source",
    CorrectionAction.SUPERSEDE: "Replace with a newer source",
    CorrectionAction.HIDE: "Hide",
    CorrectionAction.REDACT: "Redact the text",
    CorrectionAction.RESTORE: "Restore",
    CorrectionAction.DELETE: "Delete for good",
}

#: what applying it does, in one sentence
ACTION_WORDS = {
    CorrectionAction.MARK_WRONG: "It stops being recalled; you can still read it here.",
    CorrectionAction.MARK_STALE: "It is still recalled, below fresher sources, flagged stale.",
    CorrectionAction.MARK_SENSITIVE: "Only its owner recalls it from now on.",
    CorrectionAction.MARK_DUPLICATE: "It collapses under the source it duplicates.",
    CorrectionAction.SUPERSEDE: "The replacement ranks first; this one says superseded by it.",
    CorrectionAction.HIDE: "Nobody recalls it; only you see it here.",
    CorrectionAction.REDACT: "Its text is removed for good; a summary may stand in.",
    CorrectionAction.RESTORE: "It is recalled again as before.",
    CorrectionAction.DELETE: "Its text and chunks are removed for good; a tombstone stays.",
}

#: corrections that remove text for good: their buttons wear the danger style
DESTRUCTIVE = frozenset({CorrectionAction.REDACT, CorrectionAction.DELETE})

#: a source's kind as a title line names it
KIND_WORDS = {
    SourceType.NOTE: "Note",
    SourceType.CONVERSATION: "Conversation",
    SourceType.TURN: "Conversation turn",
    SourceType.EMAIL: "Mail",
    SourceType.DOCUMENT: "Document",
    SourceType.WEB: "Web page",
    SourceType.FILE: "File",
}

#: a state's badge colour role: done is calm green, paused or superseded a caution,
#: removed or failed the danger colour, hidden and withdrawn plain grey
BADGE_TONES = {
    "completed": "ok",
    "running": "info",
    "pending": "info",
    "paused": "warn",
    "failed": "danger",
    "cancelled": "quiet",
    "superseded": "warn",
    "duplicate": "quiet",
    "hidden": "quiet",
    "redacted": "danger",
    "deleted": "danger",
    "stale": "warn",
}


#: a scope as a choice over every space of it (the home's switcher, the search filter)
SCOPE_WORDS = {
    MemoryScope.PRIVATE: "Private: yours and your agents' notes",
    MemoryScope.DELEGATED: "Delegated: every delegated space",
    MemoryScope.PROJECT: "Projects: every project space",
    MemoryScope.TEAM: "Teams: every team space",
    MemoryScope.ORGANIZATION: "Organisation-wide",
    MemoryScope.SHARED: "Shared: every shared space",
    MemoryScope.PUBLIC: "Public",
}


def space_value(scope: MemoryScope | str, key: str | None) -> str:
    """The select value for a space: ``project:apollo``, or a bare scope."""
    return f"{scope}" if not key else f"{scope}:{key}"


def parse_space(value: str | None) -> tuple[MemoryScope | None, str | None]:
    """A select value back into scope and key; '' means any space."""
    if not value:
        return None, None
    scope_raw, _, key = value.partition(":")
    try:
        scope = MemoryScope(scope_raw)
    except ValueError:
        raise InvalidInputError(ReasonCode.INVALID_REQUEST, "unknown space") from None
    return scope, key or None
