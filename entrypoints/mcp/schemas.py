"""Tool arguments and results as JSON schemas, from the same msgspec types as the HTTP API.

MCP wants an object schema at the top of each tool's input and output
schema, so the struct's own schema is lifted to the top and every nested
type stays under ``$defs``.
"""

from typing import Annotated, Any

import msgspec

from application.corrections.bulk import BulkSelector
from application.corrections.commands import CorrectionRequest
from application.operations.inspection import SpaceView

__all__ = [
    "AccessPreviewArgs",
    "BulkDeleteArgs",
    "CorrectApplyArgs",
    "CorrectPreviewArgs",
    "InspectSourceArgs",
    "NoArgs",
    "SpaceList",
    "object_schema",
]


class InspectSourceArgs(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    source_id: Annotated[
        str, msgspec.Meta(min_length=1, description="A source id, as recall and context cite it.")
    ]


class AccessPreviewArgs(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    space_id: Annotated[str, msgspec.Meta(min_length=1, description="A space id (list_spaces).")]
    principal: Annotated[str, msgspec.Meta(min_length=1, description="The principal's name or id.")]


class CorrectPreviewArgs(CorrectionRequest, frozen=True, kw_only=True, forbid_unknown_fields=True):
    source_id: Annotated[str, msgspec.Meta(min_length=1, description="The source to correct.")]


class CorrectApplyArgs(CorrectionRequest, frozen=True, kw_only=True, forbid_unknown_fields=True):
    source_id: Annotated[str, msgspec.Meta(min_length=1, description="The source to correct.")]
    preview_token: Annotated[
        str, msgspec.Meta(min_length=1, description="The token memory_correct_preview returned.")
    ]


class BulkDeleteArgs(BulkSelector, frozen=True, kw_only=True, forbid_unknown_fields=True):
    preview_token: Annotated[
        str, msgspec.Meta(min_length=1, description="The token memory_delete_preview returned.")
    ]


class NoArgs(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    pass


class SpaceList(msgspec.Struct, frozen=True, kw_only=True):
    """The spaces the key may read (MCP results are objects, so the list is wrapped)."""

    spaces: list[SpaceView]


def object_schema(kind: type[msgspec.Struct]) -> dict[str, Any]:
    """The JSON schema of a struct with its own object schema at the top level."""
    (ref,), components = msgspec.json.schema_components([kind], ref_template="#/$defs/{name}")
    name = str(ref["$ref"]).rsplit("/", 1)[-1]
    top = dict(components.pop(name))
    if components:
        top["$defs"] = components
    return top
