"""The lifecycle in plain words, for the property test's oracle (no ``domain.lifecycle``).

Which correction moves a source where, and what search, packs and inspect
may then show, written from the table in docs/design.md#lifecycle rather than taken
from the code under test.
"""

from dataclasses import dataclass, field

__all__ = ["ACTIONS", "Life", "after", "inspect_text_ok", "recallable"]

ACTIONS = (
    "mark_wrong",
    "mark_stale",
    "mark_sensitive",
    "mark_duplicate",
    "supersede",
    "hide",
    "redact",
    "restore",
    "delete",
)
_READABLE = ("active", "superseded", "duplicate")


@dataclass(frozen=True)
class Life:
    state: str = "active"
    marks: frozenset[str] = field(default_factory=frozenset)
    #: the replacement (superseded) or canonical source (duplicate)
    target: str | None = None


def after(life: Life, action: str, target: str | None) -> Life | None:
    """The source after ``action``, or None when the correction must be refused."""
    if action in ("mark_wrong", "mark_stale", "mark_sensitive"):
        mark = action.removeprefix("mark_")
        if life.state not in _READABLE or mark in life.marks:
            return None
        return Life(life.state, life.marks | {mark}, life.target)
    if action == "mark_duplicate":
        return Life("duplicate", life.marks, target) if life.state == "active" else None
    if action == "supersede":
        ok = life.state in ("active", "duplicate")
        return Life("superseded", life.marks, target) if ok else None
    if action == "hide":
        return Life("hidden", life.marks) if life.state in _READABLE else None
    if action == "redact":
        return Life("redacted", life.marks) if life.state not in ("redacted", "deleted") else None
    if action == "restore":
        stuck = life.state in ("redacted", "deleted") or (life.state == "active" and not life.marks)
        return None if stuck else Life()
    assert action == "delete"
    return Life("deleted", life.marks) if life.state != "deleted" else None


def recallable(life: Life, owner: bool) -> bool:
    """May search and packs return it (its space being readable)?"""
    if life.state in ("hidden", "redacted", "deleted") or "wrong" in life.marks:
        return False
    return owner or "sensitive" not in life.marks


def inspect_text_ok(life: Life, owner: bool, content: str | None, original: str) -> bool:
    """Is what inspect showed allowed? Never deleted or redacted text; hidden and sensitive
    text to the owner only (wrong text goes to owners and correctors: not told apart here)."""
    if content is None:
        return True
    if life.state == "deleted":
        return False
    if life.state == "redacted":
        return content != original
    if life.state == "hidden" or "sensitive" in life.marks:
        return owner and content == original
    return content == original
