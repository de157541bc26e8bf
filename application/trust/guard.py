"""How the use cases apply the memory policy: one place, the same for every surface."""

from application.ports.records import CandidateFilter, SourceLifecycle
from domain.errors import PolicyDeniedError
from domain.models import Chunk, Source
from domain.policy import (
    MemoryPolicyContext,
    PolicyDecision,
    authorize_correct,
    authorize_read,
    caller_problem,
    readable_spaces,
    recall_keys,
)
from domain.reasons import ReasonCode
from domain.scopes import MemoryScope, ScopeRef

__all__ = [
    "candidate_filter",
    "correct_decision",
    "denied",
    "may_read",
    "read_decision",
    "require_org",
    "write_target",
]


def require_org(ctx: MemoryPolicyContext, org_id: str) -> None:
    """A request runs in the organisation its key belongs to, by a caller who may act."""
    if org_id != ctx.org_id:
        raise PolicyDeniedError(
            ReasonCode.PRINCIPAL_MISMATCH, "the request names another organisation"
        )
    problem = caller_problem(ctx)
    if problem is not None:
        raise PolicyDeniedError(problem, "the caller's identity does not allow this request")


def write_target(ctx: MemoryPolicyContext, scope: MemoryScope, scope_key: str | None) -> ScopeRef:
    """Private memory without a key belongs to the caller: the user, or the agent's diary."""
    if scope is MemoryScope.PRIVATE and scope_key is None:
        return ScopeRef(scope, ctx.agent_id or ctx.user_id)
    return ScopeRef(scope, scope_key)


def candidate_filter(ctx: MemoryPolicyContext) -> CandidateFilter:
    """The spaces a search may draw candidates from, applied inside the index queries."""
    return CandidateFilter(visible=readable_spaces(ctx), recall=recall_keys(ctx))


def read_decision(
    ctx: MemoryPolicyContext, item: Chunk | Source | SourceLifecycle
) -> PolicyDecision:
    """May the caller read this item now, and if not, why not.

    A chunk is checked by its own lifecycle; a source also by its marks and owner.
    """
    ref = ScopeRef(item.scope, item.scope_key)
    if isinstance(item, Source | SourceLifecycle):
        return authorize_read(ctx, ref, item.lifecycle, item.marks, item.owner)
    return authorize_read(ctx, ref, item.lifecycle)


def may_read(ctx: MemoryPolicyContext, item: Chunk | Source | SourceLifecycle) -> bool:
    """The re-check before an item is returned: the index may lag a correction."""
    return read_decision(ctx, item).allowed


def correct_decision(ctx: MemoryPolicyContext, source: Source) -> PolicyDecision:
    """May the caller correct this source, by its space and by its own state and owner?"""
    ref = ScopeRef(source.scope, source.scope_key)
    return authorize_correct(ctx, ref, source.lifecycle, source.marks, source.owner)


def denied(decision: PolicyDecision, action: str) -> PolicyDeniedError:
    where = (
        decision.scope if decision.scope_key is None else f"{decision.scope}/{decision.scope_key}"
    )
    message = f"{action} in {where} is not allowed"
    if decision.reason is ReasonCode.UNVERIFIED_MEMBERSHIP and decision.scope_key is not None:
        # the refusal a newcomer meets first: say how in, not only that they are out
        message += (
            f": you are not a member of {where}; its owner or an organisation admin can add "
            "you (`tessera admin space add-member SPACE_ID --principal YOU --role writer`)"
        )
    return PolicyDeniedError(decision.reason, message)
