"""A policy decision is a value: allowed or not, why, about which space, from where."""

import msgspec

from domain.policy.context import MemoryPolicyContext, Surface
from domain.reasons import ReasonCode
from domain.scopes import MemoryScope, ScopeRef

__all__ = ["POLICY_REASONS", "PolicyDecision", "allow", "deny"]

#: the closed set of reasons a decision may carry
POLICY_REASONS = frozenset(
    {
        ReasonCode.ALLOWED,
        ReasonCode.MISSING_ACTOR,
        ReasonCode.MISSING_SCOPE_KEY,
        ReasonCode.UNVERIFIED_MEMBERSHIP,
        ReasonCode.SCOPE_DISABLED,
        ReasonCode.DELEGATION_REQUIRED,
        ReasonCode.DELEGATION_EXPIRED,
        ReasonCode.HIDDEN_SOURCE,
        ReasonCode.REDACTED_SOURCE,
        ReasonCode.SOURCE_DELETED,
        ReasonCode.SCOPE_CROSSING_REQUIRES_PROMOTION,
        ReasonCode.PRINCIPAL_MISMATCH,
        ReasonCode.AGENT_IDENTITY_REQUIRED,
        ReasonCode.JOB_POLICY_CONTEXT_MISSING,
        ReasonCode.JOB_POLICY_CONTEXT_STALE,
        ReasonCode.INSUFFICIENT_ROLE,
        ReasonCode.SOURCE_MARKED_WRONG,
        ReasonCode.SENSITIVE_SOURCE,
    }
)


class PolicyDecision(msgspec.Struct, frozen=True, kw_only=True):
    allowed: bool
    reason: ReasonCode
    scope: MemoryScope
    scope_key: str | None
    surface: Surface
    audit_id: str

    def __post_init__(self) -> None:
        if self.reason not in POLICY_REASONS:
            raise ValueError(f"{self.reason} is not a policy reason")
        if self.allowed != (self.reason is ReasonCode.ALLOWED):
            raise ValueError("a decision is allowed exactly when its reason is 'allowed'")


def _decide(ctx: MemoryPolicyContext, ref: ScopeRef, reason: ReasonCode) -> PolicyDecision:
    return PolicyDecision(
        allowed=reason is ReasonCode.ALLOWED,
        reason=reason,
        scope=ref.scope,
        scope_key=ref.scope_key,
        surface=ctx.surface,
        audit_id=ctx.audit_id,
    )


def allow(ctx: MemoryPolicyContext, ref: ScopeRef) -> PolicyDecision:
    return _decide(ctx, ref, ReasonCode.ALLOWED)


def deny(ctx: MemoryPolicyContext, ref: ScopeRef, reason: ReasonCode) -> PolicyDecision:
    if reason is ReasonCode.ALLOWED:
        raise ValueError("deny() needs a denial reason")
    return _decide(ctx, ref, reason)
