"""HTTP routes of derived memory: reflect, propose, list and review candidates.

Thin handlers: a body becomes a use-case call under the request's policy
context; shapes are those of ``application.reflection.commands``.
"""

from typing import Annotated

import msgspec
from litestar import get, post
from litestar.di import NamedDependency
from litestar.params import FromPath, FromQuery, JSONBody, QueryParameter

from application.reflection.accept_preview import PromotionPreview
from application.reflection.commands import (
    CandidateList,
    ProposedCandidate,
    ProposeRequest,
    ProposeResult,
    ReflectRequest,
    ReflectResult,
    ReviewRequest,
    ReviewResult,
)
from application.reflection.reflect import Reflector
from application.reflection.review import Reviewer
from application.services import Services
from domain.errors import InvalidInputError, NotFoundError
from domain.policy import MemoryPolicyContext
from domain.reasons import ReasonCode
from domain.reflection.candidates import ReviewAction, ReviewState
from domain.scopes import MemoryScope

__all__ = ["REFLECTION_ROUTES", "AcceptBody", "PromoteBody", "ProposeBody", "ReflectBody"]


class ReflectBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    source_ids: list[str] = msgspec.field(default_factory=list)
    space: Annotated[
        str | None,
        msgspec.Meta(description="scope[/key]: up to 200 of that space's active sources"),
    ] = None
    extractor: Annotated[
        str, msgspec.Meta(description="rules (default, offline) or llm (when configured)")
    ] = "rules"


class ProposeBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    candidates: list[ProposedCandidate]


class PromoteBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    promote_to_scope: Annotated[
        MemoryScope | None,
        msgspec.Meta(description="Keep the records in this space instead of the suggested one"),
    ] = None
    scope_key: str | None = None


class AcceptBody(PromoteBody, frozen=True, kw_only=True, forbid_unknown_fields=True):
    preview_token: Annotated[
        str | None,
        msgspec.Meta(description="Optional: a promotion preview's token; stale -> 409"),
    ] = None


def _reflection(services: Services) -> tuple[Reflector, Reviewer]:
    if services.reflection is None or services.review is None:
        raise NotFoundError(ReasonCode.NOT_FOUND, "reflection is not configured on this service")
    return services.reflection, services.review


@post("/api/memory/reflect", status_code=200, summary="Reflect sources into candidates")
async def reflect(
    data: JSONBody[ReflectBody],
    services: NamedDependency[Services],
    policy: NamedDependency[MemoryPolicyContext],
) -> ReflectResult:
    """Typed candidates with their source ids, spans, extractor, confidence and review state.

    Reads only active sources the key may read; the others are listed as skipped.
    """
    reflector, _ = _reflection(services)
    request = ReflectRequest(
        org_id=policy.org_id,
        source_ids=data.source_ids,
        space=data.space,
        extractor=data.extractor,
    )
    return await reflector.reflect(request, policy)


@post("/api/memory/candidates/propose", status_code=200, summary="Propose candidates")
async def propose(
    data: JSONBody[ProposeBody],
    services: NamedDependency[Services],
    policy: NamedDependency[MemoryPolicyContext],
) -> ProposeResult:
    """The caller as extractor: every cited span must be in a source the key may read."""
    reflector, _ = _reflection(services)
    return await reflector.propose(
        ProposeRequest(org_id=policy.org_id, candidates=data.candidates), policy
    )


@get("/api/memory/candidates", summary="Reflection candidates the key may see")
async def list_candidates(
    services: NamedDependency[Services],
    policy: NamedDependency[MemoryPolicyContext],
    # ``state`` is a name Litestar reserves for the app's state
    review_state: Annotated[ReviewState | None, QueryParameter(name="state")] = None,
    after: FromQuery[str | None] = None,
    limit: FromQuery[int] = 50,
) -> CandidateList:
    """Candidates whose every source the key may read, in id order; page with ``after``."""
    if not 1 <= limit <= 200:
        raise InvalidInputError(ReasonCode.LIMIT_OUT_OF_RANGE, "limit must be between 1 and 200")
    _, reviewer = _reflection(services)
    return await reviewer.list_candidates(policy.org_id, policy, review_state, after, limit)


async def _review(
    services: Services,
    policy: MemoryPolicyContext,
    candidate_id: str,
    action: ReviewAction,
    body: AcceptBody | None = None,
) -> ReviewResult:
    _, reviewer = _reflection(services)
    request = ReviewRequest(
        org_id=policy.org_id,
        candidate_id=candidate_id,
        action=action,
        promote_to_scope=body.promote_to_scope if body else None,
        scope_key=body.scope_key if body else None,
        preview_token=body.preview_token if body else None,
    )
    return await reviewer.review(request, policy)


@post(
    "/api/memory/candidates/{candidate_id:str}/accept",
    status_code=200,
    summary="Accept a candidate: promote it into native graph records",
)
async def accept(
    candidate_id: FromPath[str],
    data: JSONBody[AcceptBody],
    services: NamedDependency[Services],
    policy: NamedDependency[MemoryPolicyContext],
) -> ReviewResult:
    """Entities, typed relates_to edges and mentions, each citing its raw sources.

    A broader space needs promote_to_scope and the policy's consent
    (scope_crossing_requires_promotion otherwise).
    """
    return await _review(services, policy, candidate_id, ReviewAction.ACCEPT, data)


@post(
    "/api/memory/candidates/{candidate_id:str}/preview",
    status_code=200,
    summary="Preview accepting a candidate: who would see its records",
)
async def preview_accept(
    candidate_id: FromPath[str],
    data: JSONBody[PromoteBody],
    services: NamedDependency[Services],
    policy: NamedDependency[MemoryPolicyContext],
) -> PromotionPreview:
    """Of the target space's readers, how many would see the promoted records (visible) and
    why not the others (hidden, redacted, denied), per source too; the policy's decision and,
    when allowed, a preview_token that accept may carry. Nothing changes."""
    if services.promotion_preview is None:
        raise NotFoundError(ReasonCode.NOT_FOUND, "reflection is not configured on this service")
    return await services.promotion_preview.preview(
        policy.org_id, candidate_id, policy, data.promote_to_scope, data.scope_key
    )


@post("/api/memory/candidates/{candidate_id:str}/reject", status_code=200, summary="Reject")
async def reject(
    candidate_id: FromPath[str],
    services: NamedDependency[Services],
    policy: NamedDependency[MemoryPolicyContext],
) -> ReviewResult:
    return await _review(services, policy, candidate_id, ReviewAction.REJECT)


@post("/api/memory/candidates/{candidate_id:str}/defer", status_code=200, summary="Defer")
async def defer(
    candidate_id: FromPath[str],
    services: NamedDependency[Services],
    policy: NamedDependency[MemoryPolicyContext],
) -> ReviewResult:
    return await _review(services, policy, candidate_id, ReviewAction.DEFER)


REFLECTION_ROUTES = [reflect, propose, list_candidates, accept, preview_accept, reject, defer]
