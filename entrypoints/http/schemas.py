"""The HTTP request and response bodies: strict, documented, versioned by path."""

from datetime import datetime
from typing import Annotated

import msgspec

from application.memory.filters import FiltersSpec
from application.memory.limits import (
    DEFAULT_PACK_BUDGET,
    DEFAULT_SEARCH_LIMIT,
    MAX_CONTENT_CHARS,
    MAX_PACK_BUDGET,
    MAX_SEARCH_LIMIT,
)
from application.ports.writes import WaitFor
from domain.models import MetadataValue, Turn
from domain.policy import OrgRole, SpaceRole
from domain.scopes import MemoryScope, SourceType

__all__ = [
    "AccessPreviewBody",
    "ContextBody",
    "ErrorBody",
    "ErrorDetail",
    "Health",
    "KeyBody",
    "KeyView",
    "MemberBody",
    "OrgBody",
    "PrincipalBody",
    "RememberBody",
    "SearchBody",
    "SpaceBody",
    "WritesBody",
]


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
            " each with content, an optional occurred_at and an optional speaker (a display"
            " name, searched with the turn's words). Replaces content."
        ),
    ] = None
    wait: Annotated[
        WaitFor,
        msgspec.Meta(
            description="'stored' (default): return once the memory is saved and searchable by"
            " its words; its vectors follow within moments. 'indexed': return only once it is"
            " searchable by meaning too."
        ),
    ] = WaitFor.STORED


class SearchBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    query: str
    limit: Annotated[int, msgspec.Meta(description=f"1 to {MAX_SEARCH_LIMIT} results.")] = (
        DEFAULT_SEARCH_LIMIT
    )
    filters: FiltersSpec | None = None


class ContextBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    query: str
    token_budget: Annotated[
        int, msgspec.Meta(description=f"cl100k_base tokens, 1 to {MAX_PACK_BUDGET}.")
    ] = DEFAULT_PACK_BUDGET
    filters: FiltersSpec | None = None


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


class AccessPreviewBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    principal: Annotated[str, msgspec.Meta(description="The principal's name or id.")]


class OrgBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    name: str


class PrincipalBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    name: str
    org: Annotated[
        str | None, msgspec.Meta(description="Organisation name or id; defaults to the key's.")
    ] = None
    acting_for: Annotated[
        str | None, msgspec.Meta(description="For an agent: the user (name or id) it acts for.")
    ] = None
    org_role: OrgRole = OrgRole.MEMBER
    delegation_days: Annotated[
        int, msgspec.Meta(description="For an agent: a delegation from its user for N days.")
    ] = 0


class KeyBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    principal: str
    org: str | None = None


class KeyView(msgspec.Struct, frozen=True, kw_only=True):
    """A key as listed: never its secret or hash."""

    key_id: str
    org_id: str
    principal_id: str
    created_at: datetime
    revoked_at: datetime | None = None


class SpaceBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    scope: MemoryScope
    scope_key: str | None = None
    name: str | None = None
    writes_enabled: bool = False
    org: str | None = None
    owner: Annotated[
        str | None,
        msgspec.Meta(description="The user (name or id) who owns the space; defaults to you."),
    ] = None


class MemberBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    principal: str
    role: SpaceRole = SpaceRole.READER
    org: str | None = None


class WritesBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    enabled: bool
    org: str | None = None
