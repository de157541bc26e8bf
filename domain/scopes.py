"""Memory scopes, lifecycle states and the other closed sets of the model."""

from enum import StrEnum

import msgspec

__all__ = [
    "KEYED_SCOPES",
    "LifecycleState",
    "MemoryScope",
    "PrivacyClass",
    "ScopeRef",
    "SourceType",
]


class MemoryScope(StrEnum):
    PRIVATE = "private"
    DELEGATED = "delegated"
    PROJECT = "project"
    TEAM = "team"
    ORGANIZATION = "organization"
    SHARED = "shared"
    PUBLIC = "public"


#: Scopes whose memory belongs to a named space, so a scope key is required.
KEYED_SCOPES = frozenset(
    {MemoryScope.DELEGATED, MemoryScope.PROJECT, MemoryScope.TEAM, MemoryScope.SHARED}
)


class ScopeRef(msgspec.Struct, frozen=True):
    """One memory space: a scope and, for keyed scopes (and private owners), its key."""

    scope: MemoryScope
    scope_key: str | None = None


class LifecycleState(StrEnum):
    ACTIVE = "active"
    HIDDEN = "hidden"
    REDACTED = "redacted"
    SUPERSEDED = "superseded"
    DUPLICATE = "duplicate"
    DELETED = "deleted"


class SourceType(StrEnum):
    NOTE = "note"
    CONVERSATION = "conversation"
    TURN = "turn"
    EMAIL = "email"
    DOCUMENT = "document"
    WEB = "web"
    FILE = "file"


class PrivacyClass(StrEnum):
    NORMAL = "normal"
    SENSITIVE = "sensitive"
