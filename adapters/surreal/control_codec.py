"""Control-plane records <-> SurrealDB rows, and the engine's conflicts as ConflictError.

Why one generic codec instead of one per record: every control record is a
flat msgspec Struct of strings, enums, bools, datetimes (and, for receipts,
lists and dicts of plain values), so naming each field once in the Struct is
enough: every field is written, every field is read back, and msgspec
validates the result. Three engine habits are repaired here:

- the SDK drops ``None`` values (SurrealDB ``NONE``), so a missing column is
  read as ``None`` and msgspec refuses it where the field does not allow it;
- SurrealDB answers datetimes in UTC as a nanosecond subclass msgspec does not
  accept, so they are rebuilt as plain aware datetimes (same instant);
- a naive datetime has no instant, so it is refused before it is written.

Decode failures raise ``UpstreamError(store_failed)``; they are never
turned into empty results.
"""

from datetime import UTC, datetime
from enum import Enum
from typing import Any, TypeVar

import msgspec

from domain.errors import ConflictError, InvalidInputError, UpstreamError
from domain.reasons import ReasonCode

__all__ = ["as_conflict", "from_row", "require_aware", "to_row", "to_value"]

_S = TypeVar("_S", bound=msgspec.Struct)


def require_aware(*values: object) -> None:
    """Refuse naive datetimes: the store keeps instants, and a naive one names none."""
    for value in values:
        if isinstance(value, datetime) and value.utcoffset() is None:
            raise InvalidInputError(
                ReasonCode.INVALID_REQUEST, "datetimes must be timezone-aware to be stored"
            )


def to_value(value: Any) -> Any:
    """A value as the store keeps it: enums as their strings, datetimes as UTC instants."""
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, datetime):
        require_aware(value)
        return value.astimezone(UTC)
    if isinstance(value, list):
        return [to_value(v) for v in value]
    if isinstance(value, dict):
        return {k: to_value(v) for k, v in value.items()}
    return value


def to_row(record: msgspec.Struct) -> dict[str, Any]:
    """Every field of the record under its own name (the record id travels separately)."""
    return {name: to_value(value) for name, value in msgspec.structs.asdict(record).items()}


def _value_in(value: Any) -> Any:
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise TypeError("the store answered a naive datetime")
        utc = value.astimezone(UTC)
        return datetime(
            utc.year,
            utc.month,
            utc.day,
            utc.hour,
            utc.minute,
            utc.second,
            utc.microsecond,
            tzinfo=UTC,
        )
    return value


def from_row(kind: type[_S], row: Any) -> _S:
    """The record of type ``kind`` in ``row``; columns the record does not name are ignored."""
    try:
        if not isinstance(row, dict):
            raise TypeError("expected a row object")
        data = {name: _value_in(row.get(name)) for name in kind.__struct_fields__}
        return msgspec.convert(data, kind)
    except (TypeError, ValueError, msgspec.ValidationError) as exc:
        raise UpstreamError(
            ReasonCode.STORE_FAILED,
            f"a stored {kind.__name__} row could not be decoded ({type(exc).__name__})",
        ) from exc


def as_conflict(exc: UpstreamError, what: str) -> ConflictError | None:
    """A ConflictError when the engine refused a duplicate record id or unique-index value.

    The engine's own message quotes the clashing value, so it is matched here
    and never passed on; ``what`` names the rule in the caller's words.
    """
    cause = exc.__cause__
    if cause is None:
        return None
    message = str(cause)
    duplicate_id = type(cause).__name__ == "AlreadyExistsError" or (
        "already exists" in message and "record" in message.lower()
    )
    duplicate_value = "index" in message and "already contains" in message
    if duplicate_id or duplicate_value:
        return ConflictError(ReasonCode.ALREADY_EXISTS, f"{what} already exists")
    return None
