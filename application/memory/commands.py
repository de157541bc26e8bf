"""Inputs of the use cases, validated once here for every surface."""

from datetime import datetime

import msgspec

from application.memory.limits import (
    DEFAULT_PACK_BUDGET,
    DEFAULT_SEARCH_LIMIT,
    MAX_CONTENT_CHARS,
    MAX_METADATA_KEYS,
    MAX_PACK_BUDGET,
    MAX_QUERY_CHARS,
    MAX_SCOPE_KEY_CHARS,
    MAX_SEARCH_LIMIT,
    MAX_TURNS,
    MIN_PACK_BUDGET,
)
from application.ports.writes import WaitFor
from domain.errors import InvalidInputError
from domain.models import TURN_ROLES, MetadataValue, Turn, speaker_problem
from domain.reasons import ReasonCode
from domain.scopes import KEYED_SCOPES, MemoryScope, SourceType
from domain.search_filters import SearchFilters
from domain.visible_text import has_visible_text

#: one space each per organisation
UNKEYED_SCOPES = frozenset({MemoryScope.ORGANIZATION, MemoryScope.PUBLIC})

__all__ = ["ContextRequest", "RememberRequest", "SearchRequest", "check_scope_key"]


def _check_query(query: str) -> None:
    if not has_visible_text(query):
        raise InvalidInputError(ReasonCode.EMPTY_QUERY, "query must contain visible text")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidInputError(
            ReasonCode.CONTENT_TOO_LARGE, f"query is longer than {MAX_QUERY_CHARS} characters"
        )


def _check_aware(value: datetime | None, name: str) -> None:
    if value is not None and value.tzinfo is None:
        raise InvalidInputError(
            ReasonCode.INVALID_REQUEST, f"{name} must include a timezone offset"
        )


def _check_turns(turns: list[Turn]) -> None:
    if not turns:
        raise InvalidInputError(ReasonCode.INVALID_TURN, "turns must hold at least one turn")
    if len(turns) > MAX_TURNS:
        raise InvalidInputError(
            ReasonCode.INVALID_TURN, f"a conversation holds at most {MAX_TURNS} turns"
        )
    total = 0
    for n, turn in enumerate(turns):
        if turn.role not in TURN_ROLES:
            raise InvalidInputError(
                ReasonCode.INVALID_TURN,
                f"turn {n}: role must be one of {', '.join(sorted(TURN_ROLES))}",
            )
        if not has_visible_text(turn.content):
            raise InvalidInputError(
                ReasonCode.INVALID_TURN, f"turn {n}: content must contain visible text"
            )
        problem = speaker_problem(turn.speaker)
        if problem:
            raise InvalidInputError(ReasonCode.INVALID_TURN, f"turn {n}: {problem}")
        _check_aware(turn.occurred_at, f"turn {n}: occurred_at")
        total += len(turn.content) + len(turn.role) + 4
        if turn.speaker:  # the source writes "speaker (role): "
            total += len(turn.speaker) + 3
    if total > MAX_CONTENT_CHARS:
        raise InvalidInputError(
            ReasonCode.CONTENT_TOO_LARGE,
            f"the turns hold {total} characters; the maximum is {MAX_CONTENT_CHARS}",
        )



def check_scope_key(scope: MemoryScope, scope_key: str | None) -> None:
    """A keyed scope names its space (``team``/``project`` + key); the others take none.

    One rule for every request that names a target space (remember, share)."""
    if scope in KEYED_SCOPES and not scope_key:
        raise InvalidInputError(ReasonCode.MISSING_SCOPE_KEY, f"scope '{scope}' needs a scope_key")
    if scope in UNKEYED_SCOPES and scope_key is not None:
        raise InvalidInputError(
            ReasonCode.INVALID_SCOPE_KEY,
            f"scope '{scope}' is one space per organisation and takes no scope_key",
        )
    if scope_key is not None and (not scope_key.strip() or len(scope_key) > MAX_SCOPE_KEY_CHARS):
        raise InvalidInputError(
            ReasonCode.INVALID_SCOPE_KEY,
            f"scope_key must be 1 to {MAX_SCOPE_KEY_CHARS} non-blank characters",
        )

class RememberRequest(msgspec.Struct, frozen=True, kw_only=True):
    """Raw text (``content``) or a conversation (``turns``: one episode), never both."""

    org_id: str
    content: str = ""
    scope: MemoryScope = MemoryScope.PRIVATE
    scope_key: str | None = None
    source_type: SourceType = SourceType.NOTE
    source_uri: str | None = None
    metadata: dict[str, MetadataValue] = msgspec.field(default_factory=dict)
    occurred_at: datetime | None = None
    turns: list[Turn] | None = None
    #: "indexed": return only once the vectors are searchable too (the default returns once
    #: the memory is stored and searchable by its words)
    wait: WaitFor = WaitFor.STORED

    def validate(self) -> None:
        if self.turns is not None:
            if self.content:
                raise InvalidInputError(
                    ReasonCode.INVALID_REQUEST, "give content or turns, not both"
                )
            _check_turns(self.turns)
        elif not has_visible_text(self.content):
            raise InvalidInputError(
                ReasonCode.EMPTY_CONTENT,
                "content must contain visible text (not only spaces, zero-width or format "
                "characters)",
            )
        if len(self.content) > MAX_CONTENT_CHARS:
            raise InvalidInputError(
                ReasonCode.CONTENT_TOO_LARGE,
                f"content is {len(self.content)} characters; the maximum is {MAX_CONTENT_CHARS}",
            )
        check_scope_key(self.scope, self.scope_key)
        if len(self.metadata) > MAX_METADATA_KEYS:
            raise InvalidInputError(
                ReasonCode.INVALID_REQUEST, f"metadata has more than {MAX_METADATA_KEYS} keys"
            )
        _check_aware(self.occurred_at, "occurred_at")


class SearchRequest(msgspec.Struct, frozen=True, kw_only=True):
    org_id: str
    query: str
    limit: int = DEFAULT_SEARCH_LIMIT
    #: when the question is asked, for "last week" and the like; defaults to now
    as_of: datetime | None = None
    #: the caller's narrowing (application.memory.filters), applied inside the index queries
    filters: SearchFilters | None = None

    def validate(self) -> None:
        _check_query(self.query)
        _check_aware(self.as_of, "as_of")
        if not 1 <= self.limit <= MAX_SEARCH_LIMIT:
            raise InvalidInputError(
                ReasonCode.LIMIT_OUT_OF_RANGE, f"limit must be between 1 and {MAX_SEARCH_LIMIT}"
            )


class ContextRequest(msgspec.Struct, frozen=True, kw_only=True):
    org_id: str
    query: str
    token_budget: int = DEFAULT_PACK_BUDGET
    #: when the question is asked, for "last week" and the like; defaults to now
    as_of: datetime | None = None
    #: the caller's narrowing (application.memory.filters), applied inside the index queries
    filters: SearchFilters | None = None

    def validate(self) -> None:
        _check_query(self.query)
        _check_aware(self.as_of, "as_of")
        if not MIN_PACK_BUDGET <= self.token_budget <= MAX_PACK_BUDGET:
            raise InvalidInputError(
                ReasonCode.BUDGET_OUT_OF_RANGE,
                f"token_budget must be between {MIN_PACK_BUDGET} and {MAX_PACK_BUDGET}",
            )
