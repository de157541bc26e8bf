"""The memory policy: who may read, write, share and reflect over which space.

One set of rules for every surface. Reads of a space are decided by
``authorize_read``; the candidate filter of a search (``readable_spaces``) is
derived from the very same function, so what a search may return and what a
single read may see can never disagree.

Private memory is keyed by its owner: a user's id, or an agent's id for the
agent's own notes (its diary). A private row without a key predates owners
and is readable by the organisation's owner only.
"""

from collections.abc import Iterable, Sequence

from domain.lifecycle import Exposure, Mark, Purpose, admitted_keys, exposure, recall_reason
from domain.policy.context import MemoryPolicyContext, OrgRole, SpaceAccess, SpaceRole, Surface
from domain.policy.decision import PolicyDecision, allow, deny
from domain.reasons import ReasonCode
from domain.scopes import KEYED_SCOPES, LifecycleState, MemoryScope, ScopeRef

__all__ = [
    "SCOPE_BREADTH",
    "WRITES_NEED_ENABLING",
    "authorize_correct",
    "authorize_read",
    "authorize_reflect",
    "authorize_share",
    "authorize_write",
    "caller_problem",
    "readable_spaces",
    "recall_keys",
    "recall_owners",
]

#: scopes whose writes are refused until a space enables them
WRITES_NEED_ENABLING = frozenset(
    {MemoryScope.TEAM, MemoryScope.ORGANIZATION, MemoryScope.SHARED, MemoryScope.PUBLIC}
)

#: how many people a scope reaches; moving memory to a broader one is a promotion
SCOPE_BREADTH = {
    MemoryScope.PRIVATE: 0,
    MemoryScope.DELEGATED: 1,
    MemoryScope.PROJECT: 2,
    MemoryScope.TEAM: 2,
    MemoryScope.SHARED: 3,
    MemoryScope.ORGANIZATION: 4,
    MemoryScope.PUBLIC: 5,
}

_OPEN_READ_SCOPES = frozenset({MemoryScope.ORGANIZATION, MemoryScope.PUBLIC})


def _missing_actor(ctx: MemoryPolicyContext) -> ReasonCode | None:
    if ctx.actor is not None:
        if ctx.claimed_agent is not None and ctx.claimed_agent != ctx.agent_id:
            # acting as an agent takes that agent's own key, not a claim beside another key
            return ReasonCode.AGENT_IDENTITY_REQUIRED
        return None
    # a background job must carry the context of the person it works for
    return (
        ReasonCode.JOB_POLICY_CONTEXT_MISSING
        if ctx.surface is Surface.JOB
        else ReasonCode.MISSING_ACTOR
    )


def caller_problem(ctx: MemoryPolicyContext) -> ReasonCode | None:
    """Why no operation at all may run for this caller (no actor, a false agent claim)."""
    return _missing_actor(ctx)


def _delegation_state(ctx: MemoryPolicyContext) -> ReasonCode:
    """ALLOWED when the calling agent holds a live delegation from its user."""
    user, agent = ctx.user_id, ctx.agent_id
    grants = [d for d in ctx.delegations if d.user_id == user and d.agent_id == agent]
    if not grants:
        return ReasonCode.DELEGATION_REQUIRED
    if not any(d.live_at(ctx.now) for d in grants):
        return ReasonCode.DELEGATION_EXPIRED
    return ReasonCode.ALLOWED


def _membership(ctx: MemoryPolicyContext, ref: ScopeRef) -> tuple[SpaceAccess | None, ReasonCode]:
    """The caller's strongest usable membership of a space, and the reason when there is none.

    An agent may use its user's membership while a delegation from that user
    is live; it then gets the stronger of its own role and its user's.
    """
    own = _find(ctx.memberships, ref)
    inherited = _find(ctx.user_memberships, ref) if ctx.is_agent else None
    state = ReasonCode.UNVERIFIED_MEMBERSHIP
    if inherited is not None:
        state = _delegation_state(ctx)
        if state is not ReasonCode.ALLOWED:
            inherited = None
    usable = [a for a in (own, inherited) if a is not None]
    if not usable:
        return None, state
    return max(usable, key=lambda a: a.role.can_write), ReasonCode.ALLOWED


def _find(accesses: Iterable[SpaceAccess], ref: ScopeRef) -> SpaceAccess | None:
    return next((a for a in accesses if a.space == ref), None)


def _private_reason(ctx: MemoryPolicyContext, owner: str | None, writing: bool) -> ReasonCode:
    if owner is None:
        legacy_owner = ctx.org_role is OrgRole.OWNER and not ctx.is_agent
        return ReasonCode.ALLOWED if legacy_owner and not writing else ReasonCode.PRINCIPAL_MISMATCH
    if ctx.is_agent:
        if owner == ctx.agent_id:
            return ReasonCode.ALLOWED  # the agent's own diary
        if owner == ctx.user_id:
            return _delegation_state(ctx)
        return ReasonCode.PRINCIPAL_MISMATCH
    if owner == ctx.user_id:
        return ReasonCode.ALLOWED
    if owner in ctx.own_agents and not writing:
        return ReasonCode.ALLOWED  # a user reads their agents' diaries
    return ReasonCode.PRINCIPAL_MISMATCH


def _first_checks(ctx: MemoryPolicyContext, ref: ScopeRef, *, writing: bool) -> ReasonCode | None:
    """What every decision checks first: an actor, a key where one is needed, private owners.

    None when the decision depends on the space's members instead.
    """
    missing = _missing_actor(ctx)
    if missing is not None:
        return missing
    if ref.scope in KEYED_SCOPES and not ref.scope_key:
        return ReasonCode.MISSING_SCOPE_KEY
    if ref.scope is MemoryScope.PRIVATE:
        return _private_reason(ctx, ref.scope_key, writing=writing)
    return None


def _read_reason(ctx: MemoryPolicyContext, ref: ScopeRef) -> ReasonCode:
    first = _first_checks(ctx, ref, writing=False)
    if first is not None:
        return first
    if ref.scope in _OPEN_READ_SCOPES:
        # one space per organisation for each: a key names no space anyone belongs to
        return ReasonCode.ALLOWED if ref.scope_key is None else ReasonCode.UNVERIFIED_MEMBERSHIP
    access, reason = _membership(ctx, ref)
    if access is None:
        return reason
    if ref.scope is MemoryScope.DELEGATED and ctx.is_agent:
        return _delegation_state(ctx)
    return ReasonCode.ALLOWED


def recall_owners(ctx: MemoryPolicyContext) -> frozenset[str]:
    """Whose sensitive memory the caller counts as its own: itself, and its user while a
    delegation from that user is live."""
    owners = {ctx.agent_id} if ctx.is_agent else {ctx.user_id}
    if ctx.is_agent and _delegation_state(ctx) is ReasonCode.ALLOWED:
        owners.add(ctx.user_id)
    return frozenset(o for o in owners if o)


def recall_keys(ctx: MemoryPolicyContext) -> frozenset[str]:
    """The lifecycle half of a search's candidate filter (see domain.lifecycle)."""
    return admitted_keys(recall_owners(ctx))


def authorize_read(
    ctx: MemoryPolicyContext,
    ref: ScopeRef,
    lifecycle: LifecycleState = LifecycleState.ACTIVE,
    marks: Iterable[Mark] = (),
    owner: str | None = None,
) -> PolicyDecision:
    """May the caller read the text of memory of this space in this lifecycle state?

    What each state and mark allows comes from ``domain.lifecycle``;
    ``owner`` is the source's owner, which sensitive memory is returned to.
    """
    reason = _read_reason(ctx, ref)
    if reason is ReasonCode.ALLOWED:
        reason = recall_reason(lifecycle, marks, owner=owner in recall_owners(ctx))
    return allow(ctx, ref) if reason is ReasonCode.ALLOWED else deny(ctx, ref, reason)


def _correct_reason(ctx: MemoryPolicyContext, ref: ScopeRef) -> ReasonCode:
    first = _first_checks(ctx, ref, writing=True)
    if first is not None:
        return first
    if ctx.is_agent:
        # an agent corrects shared memory only for a user who delegated to it
        delegation = _delegation_state(ctx)
        if delegation is not ReasonCode.ALLOWED:
            return delegation
    if ref.scope in _OPEN_READ_SCOPES:
        # the organisation-wide spaces are moderated by its admins
        admin = ctx.org_role.administers and not ctx.is_agent
        return ReasonCode.ALLOWED if admin else ReasonCode.INSUFFICIENT_ROLE
    access, reason = _membership(ctx, ref)
    if access is None:
        return reason
    return ReasonCode.ALLOWED if access.role.can_write else ReasonCode.INSUFFICIENT_ROLE


def _oversees(ctx: MemoryPolicyContext, ref: ScopeRef) -> bool:
    """Organisation owners and the space's owners may correct what they cannot read."""
    if ctx.is_agent:
        return False
    if ctx.org_role is OrgRole.OWNER:
        return True
    own = _find(ctx.memberships, ref)
    return own is not None and own.role is SpaceRole.OWNER


def _source_reason(
    ctx: MemoryPolicyContext,
    ref: ScopeRef,
    lifecycle: LifecycleState,
    marks: Iterable[Mark],
    owner: str | None,
) -> ReasonCode:
    """A source's own state: others may correct only what they may read of it."""
    if owner in recall_owners(ctx) or _oversees(ctx, ref):
        return ReasonCode.ALLOWED
    if exposure(lifecycle, marks, Purpose.INSPECT_OTHER) is Exposure.TEXT:
        return ReasonCode.ALLOWED
    withheld = recall_reason(lifecycle, marks, owner=False)
    return ReasonCode.HIDDEN_SOURCE if withheld is ReasonCode.ALLOWED else withheld


def authorize_correct(
    ctx: MemoryPolicyContext,
    ref: ScopeRef,
    lifecycle: LifecycleState = LifecycleState.ACTIVE,
    marks: Iterable[Mark] = (),
    owner: str | None = None,
) -> PolicyDecision:
    """May the caller correct (mark, supersede, hide, redact, restore, delete) this memory?

    Private memory: its owner (an agent: its own notes, or its user's with a
    live delegation). Organisation-wide spaces: the organisation's admins.
    Other spaces: their owners and writers; an agent needs a live delegation
    from its user on top of a role. Correcting adds nothing, so a space need
    not take writes to be corrected.

    A principal corrects only sources whose text it may read (``lifecycle``,
    ``marks`` and ``owner`` are the source's): a hidden, redacted, deleted,
    wrong or sensitive source is left to its owner, the space's owners and the
    organisation's owners. Every correction is audited.
    """
    reason = _correct_reason(ctx, ref)
    if reason is ReasonCode.ALLOWED:
        reason = _source_reason(ctx, ref, lifecycle, marks, owner)
    return allow(ctx, ref) if reason is ReasonCode.ALLOWED else deny(ctx, ref, reason)


def _write_reason(ctx: MemoryPolicyContext, ref: ScopeRef) -> ReasonCode:
    first = _first_checks(ctx, ref, writing=True)
    if first is not None:
        return first
    if ref.scope in WRITES_NEED_ENABLING and ref not in ctx.enabled_spaces:
        return ReasonCode.SCOPE_DISABLED
    if ref.scope in _OPEN_READ_SCOPES and ctx.org_role.administers and not ctx.is_agent:
        return ReasonCode.ALLOWED  # organisation admins write enabled org/public spaces
    access, reason = _membership(ctx, ref)
    if access is None:
        return reason
    if not access.role.can_write:
        return ReasonCode.INSUFFICIENT_ROLE
    if ref.scope is MemoryScope.DELEGATED and ctx.is_agent:
        return _delegation_state(ctx)
    return ReasonCode.ALLOWED


def authorize_write(ctx: MemoryPolicyContext, ref: ScopeRef) -> PolicyDecision:
    """May the caller add memory to this space? Decided before the first byte is written."""
    reason = _write_reason(ctx, ref)
    return allow(ctx, ref) if reason is ReasonCode.ALLOWED else deny(ctx, ref, reason)


def _is_promotion(source: ScopeRef, target: ScopeRef) -> bool:
    if source == target:
        return False
    return SCOPE_BREADTH[target.scope] >= SCOPE_BREADTH[source.scope]


def authorize_share(
    ctx: MemoryPolicyContext,
    source: ScopeRef,
    target: ScopeRef,
    *,
    promoted: bool = False,
) -> PolicyDecision:
    """May memory read from ``source`` be written into ``target``?

    Moving it to another space at least as broad widens its audience, so it
    needs an explicit promotion on top of read and write rights.
    """
    read = authorize_read(ctx, source)
    if not read.allowed:
        return read
    write = authorize_write(ctx, target)
    if not write.allowed:
        return write
    if _is_promotion(source, target) and not promoted:
        return deny(ctx, target, ReasonCode.SCOPE_CROSSING_REQUIRES_PROMOTION)
    return write


def authorize_reflect(
    ctx: MemoryPolicyContext,
    inputs: Sequence[ScopeRef],
    output: ScopeRef,
    *,
    promoted: bool = False,
) -> PolicyDecision:
    """May memory derived from ``inputs`` (a summary, an entity) be kept in ``output``?

    Every input must be readable and the output writable; derived memory may
    not reach a broader audience than its narrowest input without a promotion
    (``promoted``: the caller asked for this target explicitly).
    """
    for ref in inputs:
        decision = authorize_share(ctx, ref, output, promoted=promoted)
        if not decision.allowed:
            return decision
    return authorize_write(ctx, output)


def readable_spaces(ctx: MemoryPolicyContext) -> frozenset[ScopeRef]:
    """Every space the caller may read: the candidate filter of its searches.

    Built from the spaces the context names, each kept only if
    ``authorize_read`` allows it, so the filter and single reads agree.
    """
    candidates: set[ScopeRef] = {
        ScopeRef(MemoryScope.ORGANIZATION),
        ScopeRef(MemoryScope.PUBLIC),
        ScopeRef(MemoryScope.PRIVATE, None),
    }
    for owner in (ctx.user_id, ctx.agent_id, *ctx.own_agents):
        if owner:
            candidates.add(ScopeRef(MemoryScope.PRIVATE, owner))
    candidates.update(a.space for a in (*ctx.memberships, *ctx.user_memberships))
    return frozenset(ref for ref in candidates if authorize_read(ctx, ref).allowed)
