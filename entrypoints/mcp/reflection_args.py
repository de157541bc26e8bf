"""Arguments of the derived-memory MCP tools that are not a route's own body."""

from typing import Annotated
from urllib.parse import quote, urlencode

import msgspec

from domain.reflection.candidates import ReviewAction, ReviewState
from domain.scopes import MemoryScope

__all__ = ["CandidateReviewArgs", "CandidatesListArgs", "list_path", "review_route"]


class CandidatesListArgs(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    state: Annotated[
        ReviewState | None, msgspec.Meta(description="Only candidates in this review state.")
    ] = None
    after: Annotated[
        str | None, msgspec.Meta(description="The next_after of the previous page.")
    ] = None
    limit: Annotated[int, msgspec.Meta(ge=1, le=200)] = 50


class CandidateReviewArgs(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    candidate_id: Annotated[str, msgspec.Meta(min_length=1, description="A candidate's id.")]
    action: ReviewAction
    promote_to_scope: Annotated[
        MemoryScope | None,
        msgspec.Meta(description="accept only: keep the records in this broader space."),
    ] = None
    scope_key: str | None = None


def list_path(args: CandidatesListArgs) -> str:
    params = {k: v for k, v in msgspec.to_builtins(args).items() if v is not None}
    return f"/api/memory/candidates?{urlencode(params)}"


def review_route(args: CandidateReviewArgs) -> tuple[str, dict[str, object] | None]:
    """The review route's path and body (accept takes a body; reject and defer none)."""
    path = f"/api/memory/candidates/{quote(args.candidate_id, safe='')}/{args.action}"
    if args.action is not ReviewAction.ACCEPT:
        return path, None
    body = {"promote_to_scope": args.promote_to_scope, "scope_key": args.scope_key}
    return path, {k: v for k, v in body.items() if v is not None}
