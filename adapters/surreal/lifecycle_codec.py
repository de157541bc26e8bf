"""The corrected half of a source row: marks, links and correction history.

Kept apart from ``codec`` so the lifecycle's fields are named once. The
history is stored as JSON text (like metadata): a SCHEMAFULL object would
drop the ``None`` values it holds.
"""

from collections.abc import Mapping
from typing import Any

import msgspec

from application.ports.records import SourceLifecycle
from domain.errors import UpstreamError
from domain.lifecycle import Mark
from domain.models import CorrectionRecord, Source, owner_of
from domain.reasons import ReasonCode
from domain.scopes import LifecycleState, MemoryScope

__all__ = ["LIFECYCLE_FIELDS", "lifecycle_from", "lifecycle_from_row", "lifecycle_row"]

LIFECYCLE_FIELDS = "marks, superseded_by, duplicate_of, corrections"

_encode = msgspec.json.Encoder().encode
_decode = msgspec.json.Decoder(tuple[CorrectionRecord, ...]).decode


def lifecycle_row(source: Source) -> dict[str, Any]:
    return {
        "marks": sorted(str(m) for m in source.marks),
        "superseded_by": source.superseded_by,
        "duplicate_of": source.duplicate_of,
        "corrections": _encode(source.corrections).decode("utf-8"),
    }


def lifecycle_from_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """Source fields from a row; rows written before corrections existed have none."""
    history = row.get("corrections")
    return {
        "marks": frozenset(Mark(m) for m in row.get("marks") or ()),
        "superseded_by": row.get("superseded_by"),
        "duplicate_of": row.get("duplicate_of"),
        "corrections": _decode(history) if history else (),
    }


def lifecycle_from(row: Mapping[str, Any]) -> SourceLifecycle:
    """A source's lifecycle from a row of ``_LIFECYCLES`` (no history, no text)."""
    try:
        scope, key = MemoryScope(row["scope"]), row.get("scope_key")
        return SourceLifecycle(
            source_id=str(row["id"]),
            scope=scope,
            scope_key=key,
            lifecycle=LifecycleState(row["lifecycle"]),
            marks=frozenset(Mark(m) for m in row.get("marks") or ()),
            superseded_by=row.get("superseded_by"),
            duplicate_of=row.get("duplicate_of"),
            owner=owner_of(scope, key, row["created_by"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise UpstreamError(
            ReasonCode.STORE_FAILED,
            f"a stored source row could not be decoded ({type(exc).__name__})",
        ) from exc
