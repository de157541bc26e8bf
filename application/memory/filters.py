"""The ``filters`` object of search and context packs, as every surface sends it.

One shape for HTTP bodies, MCP tool arguments and the CLI's flags: strict
(an unknown key is refused by the decoder as ``unknown_field``), read into the
domain's ``SearchFilters`` here, where every broken rule becomes a 422
``invalid_filter`` whose detail names the field, never echoes more than a
short value.
"""

from datetime import UTC, date, datetime, time, timedelta
from typing import Annotated

import msgspec

from domain.errors import InvalidInputError
from domain.reasons import ReasonCode
from domain.scopes import MemoryScope, SourceType
from domain.search_filters import (
    MAX_FILTER_ENTRIES,
    MAX_FILTER_VALUE_CHARS,
    FilterScalar,
    ParticipantRole,
    SearchFilters,
)

__all__ = ["FiltersSpec", "OccurredRange", "ParticipantsSpec", "parse_filters", "parse_moment"]

_NAME = Annotated[
    str | None,
    msgspec.Meta(
        description="A name, a word of it or an address (case ignored): 'alice', "
        "'Alice Smith', 'alice@example.com' or 'example.com'."
    ),
]


class ParticipantsSpec(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Who took part; every name given must be recorded in that role."""

    any: Annotated[
        _NAME, msgspec.Meta(description="In From, To or Cc, or the turn's speaker.")
    ] = None
    sender: Annotated[_NAME, msgspec.Meta(description="In the From header.")] = msgspec.field(
        default=None, name="from"
    )
    to: _NAME = None
    cc: _NAME = None
    speaker: Annotated[_NAME, msgspec.Meta(description="The turn's speaker (a name).")] = None


class OccurredRange(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Inclusive bounds; a date alone means its whole day (UTC)."""

    start: Annotated[
        str | None,
        msgspec.Meta(description="ISO 8601: '2024-03-01' or '2024-03-01T09:00:00+01:00'."),
    ] = msgspec.field(default=None, name="from")
    end: Annotated[str | None, msgspec.Meta(description="ISO 8601, inclusive.")] = msgspec.field(
        default=None, name="to"
    )


class FiltersSpec(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Narrow a search or pack; every part given must hold. Never widens what the key may read."""

    scope: MemoryScope | None = None
    scope_key: Annotated[
        str | None, msgspec.Meta(description="With scope: one space (a project's key, ...).")
    ] = None
    source_type: Annotated[
        list[SourceType] | None, msgspec.Meta(description="Any of these source types.")
    ] = None
    import_id: Annotated[
        str | None, msgspec.Meta(description="Only what this import wrote.")
    ] = None
    participants: ParticipantsSpec | None = None
    occurred_at: OccurredRange | None = None
    metadata: Annotated[
        dict[str, FilterScalar] | None,
        msgspec.Meta(
            description=f"Key to value, at most {MAX_FILTER_ENTRIES}; a list-valued key matches "
            "when it contains the value."
        ),
    ] = None


def _invalid(detail: str) -> InvalidInputError:
    return InvalidInputError(ReasonCode.INVALID_FILTER, detail)


def parse_moment(text: str, field: str, *, end: bool) -> datetime:
    """ISO 8601 with an offset, or a date alone (its first or, for ``end``, its last instant)."""
    value = text.strip()
    shown = value[:40]
    if len(value) == 10:
        try:
            day = date.fromisoformat(value)
        except ValueError:
            raise _invalid(f"{field} is not an ISO 8601 date: {shown!r}") from None
        start = datetime.combine(day, time.min, tzinfo=UTC)
        return start + timedelta(days=1, microseconds=-1) if end else start
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise _invalid(f"{field} is not an ISO 8601 date or time: {shown!r}") from None
    if moment.tzinfo is None:
        raise _invalid(f"{field} must include a timezone offset (or be a date alone)")
    try:
        moment.astimezone(UTC)  # compared and stored as UTC instants
    except OverflowError:
        raise _invalid(f"{field} is outside the years 1 to 9999 in UTC") from None
    return moment


def parse_filters(spec: FiltersSpec | None) -> SearchFilters | None:
    """The domain filter, or None when nothing narrows; InvalidInputError(invalid_filter)."""
    if spec is None:
        return None
    people = spec.participants or ParticipantsSpec()
    participants = tuple(
        (role, name)
        for role, name in (
            (ParticipantRole.ANY, people.any),
            (ParticipantRole.FROM, people.sender),
            (ParticipantRole.TO, people.to),
            (ParticipantRole.CC, people.cc),
            (ParticipantRole.SPEAKER, people.speaker),
        )
        if name is not None
    )
    if spec.source_type is not None and len(spec.source_type) > MAX_FILTER_ENTRIES:
        raise _invalid(f"source_type lists at most {MAX_FILTER_ENTRIES} types")
    if spec.source_type == []:
        raise _invalid("source_type must name at least one type (or be left out)")
    span = spec.occurred_at or OccurredRange()
    try:
        filters = SearchFilters(
            scope=spec.scope,
            scope_key=spec.scope_key,
            source_types=frozenset(spec.source_type or ()),
            import_id=spec.import_id,
            participants=participants,
            occurred_from=None
            if span.start is None
            else parse_moment(span.start, "occurred_at.from", end=False),
            occurred_to=None
            if span.end is None
            else parse_moment(span.end, "occurred_at.to", end=True),
            metadata=tuple((spec.metadata or {}).items()),
        )
    except ValueError as exc:
        raise _invalid(str(exc)[:MAX_FILTER_VALUE_CHARS]) from None
    return None if filters.is_empty else filters
