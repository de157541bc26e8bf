"""The HTTP request and response bodies: strict, documented, versioned by path."""

from datetime import datetime
from typing import Annotated

import msgspec

from application.limits import (
    DEFAULT_PACK_BUDGET,
    DEFAULT_SEARCH_LIMIT,
    MAX_CONTENT_CHARS,
    MAX_PACK_BUDGET,
    MAX_SEARCH_LIMIT,
)
from domain.models import MetadataValue, Turn
from domain.scopes import MemoryScope, SourceType

__all__ = ["ContextBody", "ErrorBody", "ErrorDetail", "Health", "RememberBody", "SearchBody"]


class RememberBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    content: Annotated[
        str,
        msgspec.Meta(
            description=f"The raw text, kept verbatim. At most {MAX_CONTENT_CHARS} characters."
            " Leave empty when giving turns."
        ),
    ] = ""
    scope: MemoryScope = MemoryScope.PRIVATE
    scope_key: Annotated[
        str | None,
        msgspec.Meta(description="Names the space for delegated, project, team and shared scopes."),
    ] = None
    source_type: SourceType = SourceType.NOTE
    source_uri: str | None = None
    metadata: dict[str, MetadataValue] = msgspec.field(default_factory=dict)
    occurred_at: Annotated[
        datetime | None,
        msgspec.Meta(description="When it happened (RFC 3339 with offset); defaults to unknown."),
    ] = None
    turns: Annotated[
        list[Turn] | None,
        msgspec.Meta(
            description="A conversation (one episode): turns of role user, assistant or system,"
            " each with content and an optional occurred_at. Replaces content."
        ),
    ] = None


class SearchBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    query: str
    limit: Annotated[int, msgspec.Meta(description=f"1 to {MAX_SEARCH_LIMIT} results.")] = (
        DEFAULT_SEARCH_LIMIT
    )


class ContextBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    query: str
    token_budget: Annotated[
        int, msgspec.Meta(description=f"cl100k_base tokens, 1 to {MAX_PACK_BUDGET}.")
    ] = DEFAULT_PACK_BUDGET


class Health(msgspec.Struct, frozen=True, kw_only=True):
    status: str
    engine: str
    store_url_kind: str
    embedder_model: str
    embedding_dimension: int
    retrieval_index: str
    version: str


class ErrorDetail(msgspec.Struct, frozen=True, kw_only=True):
    reason: str
    detail: str


class ErrorBody(msgspec.Struct, frozen=True, kw_only=True):
    error: ErrorDetail
