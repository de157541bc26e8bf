"""The corrected half of a source row: marks, links and correction history.

Kept apart from ``codec`` so the lifecycle's fields are named once. The
history is stored as JSON text (like metadata): a SCHEMAFULL object would
drop the ``None`` values it holds.
"""

from collections.abc import Mapping
from typing import Any

import msgspec

from domain.lifecycle import Mark
from domain.models import CorrectionRecord, Source

__all__ = ["LIFECYCLE_FIELDS", "lifecycle_from_row", "lifecycle_row"]

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
