"""The records Tessera keeps: principals, raw sources and their chunks.

A source is the verbatim truth; chunks are derived from it and always point
back to it by ``source_id``.
"""

from datetime import datetime
from enum import StrEnum

import msgspec

from domain.lifecycle import CorrectionAction, Mark, recall_key
from domain.scopes import KEYED_SCOPES, LifecycleState, MemoryScope, PrivacyClass, SourceType

__all__ = [
    "MAX_SPEAKER_CHARS",
    "TURN_ROLES",
    "Chunk",
    "CorrectionRecord",
    "MetadataValue",
    "Principal",
    "PrincipalKind",
    "Source",
    "Turn",
    "chunk_recall",
    "owner_of",
    "speaker_problem",
    "spoken_text",
]

MetadataValue = str | int | float | bool | None | list[str]

#: who spoke a conversation turn; a closed set so rankers can rely on it
TURN_ROLES = frozenset({"user", "assistant", "system"})
#: a speaker is a display name ("Maya"), not a text: one short line
MAX_SPEAKER_CHARS = 100


def speaker_problem(speaker: str | None) -> str | None:
    """Why ``speaker`` is not a usable display name, or None when it is (or is absent)."""
    if speaker is None:
        return None
    if not speaker.strip():
        return "speaker must contain non-whitespace text"
    if len(speaker) > MAX_SPEAKER_CHARS:
        return f"speaker is longer than {MAX_SPEAKER_CHARS} characters"
    if speaker != speaker.strip() or any(not ch.isprintable() for ch in speaker):
        return "speaker must be one line without leading or trailing spaces"
    return None


def spoken_text(text: str, speaker: str | None) -> str:
    """What the ranker reads of a turn: its speaker's name before its words.

    A first-person turn ("I ran my first marathon") never names who said it;
    with the name in what the ranker reads, "When did Maya run a marathon?"
    covers it. The candidate searches (BM25, vector) see the verbatim words:
    in a two-person conversation every question names one of the two, and
    the name in every turn made half the conversation a lexical candidate
    and pulled short turns' vectors toward the name (measured on the
    conversation fixture: benchmarks/RESULTS.md). The stored text stays verbatim.
    """
    return f"{speaker}: {text}" if speaker else text


class PrincipalKind(StrEnum):
    USER = "user"
    AGENT = "agent"


class Principal(msgspec.Struct, frozen=True, kw_only=True):
    """Who acts. An agent always acts for a user, and both ids are kept."""

    principal_id: str
    kind: PrincipalKind = PrincipalKind.USER
    acting_for: str | None = None

    def __post_init__(self) -> None:
        if not self.principal_id:
            raise ValueError("principal_id must not be empty")
        if self.kind is PrincipalKind.AGENT and not self.acting_for:
            raise ValueError("an agent principal must name the user it acts for")
        if self.kind is PrincipalKind.USER and self.acting_for is not None:
            raise ValueError("a user principal acts for nobody else")


def owner_of(scope: MemoryScope, scope_key: str | None, created_by: str) -> str:
    """Whose memory it is: a private space's owner, else whoever wrote it."""
    if scope is MemoryScope.PRIVATE and scope_key:
        return scope_key
    return created_by


def _check_scope(scope: MemoryScope, scope_key: str | None) -> None:
    if scope in KEYED_SCOPES and not scope_key:
        raise ValueError(f"scope {scope} needs a scope_key")


class CorrectionRecord(msgspec.Struct, frozen=True, kw_only=True):
    """One applied correction, kept on its source: who, when, what and why (never old text)."""

    action: CorrectionAction
    actor_id: str
    agent_id: str | None = None
    at: datetime
    #: the version the correction produced
    version: int
    reason: str | None = None
    #: the replacement (supersede) or canonical source (mark_duplicate)
    target_id: str | None = None


class Source(msgspec.Struct, frozen=True, kw_only=True):
    """Raw memory, captured verbatim before anything is derived from it.

    A deleted source is a tombstone: its content is empty, its ids and
    hashes stay, and its corrections say who deleted it, when and why.
    """

    source_id: str
    org_id: str
    scope: MemoryScope
    scope_key: str | None
    source_type: SourceType
    source_uri: str | None = None
    version: int = 1
    content: str
    content_hash: str
    metadata: dict[str, MetadataValue] = msgspec.field(default_factory=dict)
    privacy_class: PrivacyClass = PrivacyClass.NORMAL
    created_by: str
    created_at: datetime
    occurred_at: datetime | None = None
    lifecycle: LifecycleState = LifecycleState.ACTIVE
    marks: frozenset[Mark] = frozenset()
    superseded_by: str | None = None
    duplicate_of: str | None = None
    corrections: tuple[CorrectionRecord, ...] = ()

    def __post_init__(self) -> None:
        if not self.content and self.lifecycle is not LifecycleState.DELETED:
            raise ValueError("a source must have content")
        if self.superseded_by is not None and self.lifecycle is not LifecycleState.SUPERSEDED:
            raise ValueError("only a superseded source names its replacement")
        if self.duplicate_of is not None and self.lifecycle is not LifecycleState.DUPLICATE:
            raise ValueError("only a duplicate names its canonical source")
        if self.version < 1:
            raise ValueError("version starts at 1")
        _check_scope(self.scope, self.scope_key)

    @property
    def owner(self) -> str:
        return owner_of(self.scope, self.scope_key, self.created_by)

    @property
    def recall(self) -> str:
        """The recall key its chunks carry in every index (see domain.lifecycle)."""
        return recall_key(self.lifecycle, self.marks, self.owner)


class Chunk(msgspec.Struct, frozen=True, kw_only=True):
    """A slice of a source small enough to embed; ``start``/``end`` index the source."""

    chunk_id: str
    source_id: str
    org_id: str
    ordinal: int
    text: str
    start: int
    end: int
    content_hash: str
    scope: MemoryScope
    scope_key: str | None
    created_at: datetime
    occurred_at: datetime | None = None
    lifecycle: LifecycleState = LifecycleState.ACTIVE
    #: for a conversation turn: who spoke it and its position in the episode (the source)
    role: str | None = None
    turn_index: int | None = None
    #: the turn's speaker by name ("Maya"), beside its role
    speaker: str | None = None

    def __post_init__(self) -> None:
        if self.role is not None and self.role not in TURN_ROLES:
            raise ValueError(f"role must be one of {sorted(TURN_ROLES)}")
        problem = speaker_problem(self.speaker)
        if problem:
            raise ValueError(problem)
        if self.turn_index is not None and self.turn_index < 0:
            raise ValueError("turn_index must be >= 0")
        if not self.text:
            raise ValueError("a chunk must have text")
        if not 0 <= self.start < self.end:
            raise ValueError("chunk span must be a non-empty range")
        if self.ordinal < 0:
            raise ValueError("ordinal must be >= 0")
        _check_scope(self.scope, self.scope_key)


def chunk_recall(source: Source, chunk: Chunk) -> str:
    """The recall key of one chunk: its source's, unless the chunk's own state is stricter."""
    state = source.lifecycle if chunk.lifecycle is LifecycleState.ACTIVE else chunk.lifecycle
    return recall_key(state, source.marks, source.owner)


class Turn(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One turn of a conversation as a caller hands it in; checked by the request's validate()."""

    role: str
    content: str
    occurred_at: datetime | None = None
    #: who said it, by name ("Maya"); the role stays user, assistant or system
    speaker: str | None = None
