"""Request bodies of the import routes (``/api/sources/imports``), shared with MCP."""

from typing import Annotated

import msgspec

from domain.scopes import MemoryScope

__all__ = ["ImportIdArgs", "ImportStartBody"]


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
