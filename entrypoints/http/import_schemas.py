"""Request bodies of the import routes (``/api/sources/imports``), shared with MCP."""

from dataclasses import dataclass
from typing import Annotated

import msgspec
from litestar.openapi.spec import (
    OpenAPIFormat,
    OpenAPIMediaType,
    OpenAPIType,
    Operation,
    Reference,
    RequestBody,
    Schema,
)

from domain.scopes import MemoryScope

__all__ = ["ImportIdArgs", "ImportStartBody", "StartImportOperation"]

#: what a file system takes as a path (PATH_MAX); a NUL byte it never takes
MAX_PATH_CHARS = 4096


class ImportStartBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    path: Annotated[
        str,
        msgspec.Meta(
            min_length=1,
            description=(
                "The archive (file or folder) in the organisation's import area: relative "
                "to its files folder, or a folder the operator granted it."
            ),
        ),
    ]
    adapter: Annotated[
        str, msgspec.Meta(description="Its format: mbox, maildir, jsonl, chatgpt or markdown.")
    ]
    scope: MemoryScope = MemoryScope.PRIVATE
    scope_key: str | None = None


class ImportIdArgs(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    import_id: Annotated[
        str, msgspec.Meta(min_length=1, description="An import id, as the start answered it.")
    ]


def _start_fields(*, upload: bool) -> dict[str, Reference | Schema]:
    text = Schema(type=OpenAPIType.STRING)
    fields: dict[str, Reference | Schema] = {
        "adapter": Schema(
            type=OpenAPIType.STRING,
            description="Its format: mbox, maildir, jsonl, chatgpt or markdown.",
        ),
        "scope": Schema(
            type=OpenAPIType.STRING,
            enum=[scope.value for scope in MemoryScope],
            default=MemoryScope.PRIVATE.value,
        ),
        "scope_key": text if upload else Schema(one_of=[text, Schema(type=OpenAPIType.NULL)]),
    }
    if upload:
        archive = Schema(type=OpenAPIType.STRING, format=OpenAPIFormat.BINARY)
        return {"file": archive, **fields}
    path = Schema(
        type=OpenAPIType.STRING,
        min_length=1,
        max_length=MAX_PATH_CHARS,
        pattern="^[^\\u0000]*$",
        description="The archive (file or folder), under the service's import root.",
    )
    return {"path": path, **fields}


@dataclass
class StartImportOperation(Operation):
    """The start's two bodies in the document: JSON naming a path, or a multipart upload.

    Litestar documents a body only from a ``data`` parameter, and the start route
    reads its body itself because it takes either.
    """

    def __post_init__(self) -> None:
        json_body = Schema(
            type=OpenAPIType.OBJECT,
            properties=_start_fields(upload=False),
            required=["adapter", "path"],
            additional_properties=False,
        )
        upload = Schema(
            type=OpenAPIType.OBJECT,
            properties=_start_fields(upload=True),
            required=["adapter", "file"],
        )
        self.request_body = RequestBody(
            required=True,
            content={
                "application/json": OpenAPIMediaType(schema=json_body),
                "multipart/form-data": OpenAPIMediaType(schema=upload),
            },
        )
