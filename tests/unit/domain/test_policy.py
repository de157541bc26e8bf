"""The memory policy, rule by rule and reason by reason, on small made-up contexts.

Every test names the rule it pins down. Contexts are built by hand (no control
plane, no clock): the policy is a pure function of a context and a space.
"""

from datetime import UTC, datetime, timedelta

import pytest

from domain.models import Principal, PrincipalKind
from domain.policy import (
    POLICY_REASONS,
    SCOPE_BREADTH,
    WRITES_NEED_ENABLING,
    Delegation,
    MemoryPolicyContext,
    OrgRole,
    PolicyDecision,
    SpaceAccess,
    SpaceRole,
    Surface,
    authorize_read,
    authorize_reflect,
    authorize_share,
    authorize_write,
    caller_problem,
    readable_spaces,
)
from domain.policy.decision import allow, deny
from domain.reasons import ReasonCode
from domain.scopes import KEYED_SCOPES, LifecycleState, MemoryScope, ScopeRef

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
LIVE = NOW + timedelta(days=1)
EXPIRED = NOW - timedelta(seconds=1)

ALICE = Principal(principal_id="alice")
BOB = Principal(principal_id="bob")
BOT = Principal(principal_id="bot", kind=PrincipalKind.AGENT, acting_for="alice")
BOT2 = Principal(principal_id="bot2", kind=PrincipalKind.AGENT, acting_for="alice")

PROJECT = ScopeRef(MemoryScope.PROJECT, "apollo")
TEAM = ScopeRef(MemoryScope.TEAM, "core")
SHARED = ScopeRef(MemoryScope.SHARED, "partners")
DELEGATED = ScopeRef(MemoryScope.DELEGATED, "alice-errands")
ORG = ScopeRef(MemoryScope.ORGANIZATION)
PUBLIC = ScopeRef(MemoryScope.PUBLIC)


def ctx(
    actor: Principal | None = ALICE,
    *,
    surface: Surface = Surface.API,
    role: OrgRole = OrgRole.MEMBER,
    member: dict[ScopeRef, SpaceRole] | None = None,
    user_member: dict[ScopeRef, SpaceRole] | None = None,
    delegations: tuple[Delegation, ...] = (),
    own_agents: frozenset[str] = frozenset(),
    enabled: frozenset[ScopeRef] = frozenset(),
) -> MemoryPolicyContext:
    return MemoryPolicyContext(
        org_id="acme",
        actor=actor,
        surface=surface,
        now=NOW,
        org_role=role,
        memberships=tuple(SpaceAccess(space=s, role=r) for s, r in (member or {}).items()),
        user_memberships=tuple(
            SpaceAccess(space=s, role=r) for s, r in (user_member or {}).items()
        ),
        delegations=delegations,
        own_agents=own_agents,
        enabled_spaces=enabled,
        audit_id="audit-1",
    )


def grant(expires_at: datetime, user: str = "alice", agent: str = "bot") -> Delegation:
    return Delegation(user_id=user, agent_id=agent, expires_at=expires_at)


def private(owner: str | None) -> ScopeRef:
    return ScopeRef(MemoryScope.PRIVATE, owner)


def read(c: MemoryPolicyContext, ref: ScopeRef, lc: LifecycleState = LifecycleState.ACTIVE) -> str:
    return authorize_read(c, ref, lc).reason


def write(c: MemoryPolicyContext, ref: ScopeRef) -> str:
    return authorize_write(c, ref).reason


ALL_ENABLED = frozenset({TEAM, SHARED, ORG, PUBLIC})


# -- the context ---------------------------------------------------------------


def test_context_knows_user_and_agent_ids() -> None:
    assert (ctx(ALICE).user_id, ctx(ALICE).agent_id, ctx(ALICE).is_agent) == ("alice", None, False)
    assert (ctx(BOT).user_id, ctx(BOT).agent_id, ctx(BOT).is_agent) == ("alice", "bot", True)
    assert (ctx(None).user_id, ctx(None).agent_id, ctx(None).is_agent) == (None, None, False)


def test_roles_and_delegation_liveness() -> None:
    assert OrgRole.OWNER.administers and OrgRole.ADMIN.administers
    assert not OrgRole.MEMBER.administers
    assert SpaceRole.OWNER.can_write and SpaceRole.WRITER.can_write
    assert not SpaceRole.READER.can_write
    assert grant(LIVE).live_at(NOW)
    assert not grant(NOW).live_at(NOW)  # expiry is exclusive
    assert not grant(EXPIRED).live_at(NOW)


def test_policy_constants() -> None:
    assert {
        MemoryScope.TEAM,
        MemoryScope.ORGANIZATION,
        MemoryScope.SHARED,
        MemoryScope.PUBLIC,
    } == WRITES_NEED_ENABLING
    assert set(SCOPE_BREADTH) == set(MemoryScope)
    assert SCOPE_BREADTH[MemoryScope.PRIVATE] < SCOPE_BREADTH[MemoryScope.DELEGATED]
    assert SCOPE_BREADTH[MemoryScope.ORGANIZATION] < SCOPE_BREADTH[MemoryScope.PUBLIC]


# -- PolicyDecision invariants ---------------------------------------------------


def test_decision_carries_scope_surface_and_audit_id() -> None:
    c = ctx(surface=Surface.MCP)
    decision = authorize_read(c, PROJECT)
    assert decision == PolicyDecision(
        allowed=False,
        reason=ReasonCode.UNVERIFIED_MEMBERSHIP,
        scope=MemoryScope.PROJECT,
        scope_key="apollo",
        surface=Surface.MCP,
        audit_id="audit-1",
    )


def test_decision_is_allowed_exactly_when_its_reason_is_allowed() -> None:
    for allowed, reason in ((True, ReasonCode.MISSING_ACTOR), (False, ReasonCode.ALLOWED)):
        with pytest.raises(
            ValueError, match=r"^a decision is allowed exactly when its reason is 'allowed'$"
        ):
            PolicyDecision(
                allowed=allowed,
                reason=reason,
                scope=MemoryScope.ORGANIZATION,
                scope_key=None,
                surface=Surface.API,
                audit_id="",
            )


def test_decision_reason_must_be_a_policy_reason() -> None:
    with pytest.raises(ValueError, match="not a policy reason"):
        PolicyDecision(
            allowed=False,
            reason=ReasonCode.NOT_FOUND,
            scope=MemoryScope.ORGANIZATION,
            scope_key=None,
            surface=Surface.API,
            audit_id="",
        )


@pytest.mark.parametrize("reason", sorted(POLICY_REASONS - {ReasonCode.ALLOWED}))
def test_every_policy_reason_makes_a_denial(reason: ReasonCode) -> None:
    decision = deny(ctx(), ORG, reason)
    assert (decision.allowed, decision.reason) == (False, reason)


def test_deny_needs_a_denial_reason_and_allow_allows() -> None:
    with pytest.raises(ValueError, match=r"^deny\(\) needs a denial reason$"):
        deny(ctx(), ORG, ReasonCode.ALLOWED)
    assert allow(ctx(), ORG).allowed


def test_policy_reasons_are_closed() -> None:
    assert ReasonCode.ALLOWED in POLICY_REASONS
    assert ReasonCode.ADMIN_REQUIRED not in POLICY_REASONS
    assert ReasonCode.INVALID_API_KEY not in POLICY_REASONS


# -- actors --------------------------------------------------------------------


@pytest.mark.parametrize("ref", [ORG, PROJECT, private("alice")])
def test_no_actor_is_missing_actor(ref: ScopeRef) -> None:
    assert read(ctx(None), ref) == ReasonCode.MISSING_ACTOR
    assert write(ctx(None, enabled=ALL_ENABLED), ref) == ReasonCode.MISSING_ACTOR


def test_a_job_without_an_actor_is_job_policy_context_missing() -> None:
    job = ctx(None, surface=Surface.JOB)
    assert read(job, ORG) == ReasonCode.JOB_POLICY_CONTEXT_MISSING
    assert write(job, private("alice")) == ReasonCode.JOB_POLICY_CONTEXT_MISSING
    assert readable_spaces(job) == frozenset()


def test_a_job_with_an_actor_is_judged_like_that_actor() -> None:
    assert read(ctx(ALICE, surface=Surface.JOB), private("alice")) == ReasonCode.ALLOWED


# -- read: open and keyed scopes -----------------------------------------------


@pytest.mark.parametrize("actor", [ALICE, BOB, BOT])
def test_organization_and_public_are_readable_by_every_principal(actor: Principal) -> None:
    assert read(ctx(actor), ORG) == ReasonCode.ALLOWED
    assert read(ctx(actor), PUBLIC) == ReasonCode.ALLOWED


@pytest.mark.parametrize("scope", sorted(KEYED_SCOPES))
def test_keyed_scopes_need_a_key(scope: MemoryScope) -> None:
    for key in (None, ""):
        ref = ScopeRef(scope, key)
        assert read(ctx(member={ref: SpaceRole.OWNER}), ref) == ReasonCode.MISSING_SCOPE_KEY
        c = ctx(member={ref: SpaceRole.OWNER}, enabled=frozenset({ref}))
        assert write(c, ref) == ReasonCode.MISSING_SCOPE_KEY


@pytest.mark.parametrize("ref", [PROJECT, TEAM, SHARED, DELEGATED])
def test_keyed_scopes_need_a_membership(ref: ScopeRef) -> None:
    assert read(ctx(), ref) == ReasonCode.UNVERIFIED_MEMBERSHIP
    assert read(ctx(member={ref: SpaceRole.READER}), ref) == ReasonCode.ALLOWED
    other = ScopeRef(ref.scope, "elsewhere")
    assert read(ctx(member={other: SpaceRole.OWNER}), ref) == ReasonCode.UNVERIFIED_MEMBERSHIP


def test_an_org_admin_is_no_member_of_keyed_spaces() -> None:
    assert read(ctx(role=OrgRole.OWNER), PROJECT) == ReasonCode.UNVERIFIED_MEMBERSHIP


def test_an_agent_reads_with_its_own_membership_without_delegation() -> None:
    assert read(ctx(BOT, member={PROJECT: SpaceRole.READER}), PROJECT) == ReasonCode.ALLOWED


def test_an_agent_uses_its_users_memberships_only_with_a_live_delegation() -> None:
    inherited = {PROJECT: SpaceRole.WRITER}
    assert read(ctx(BOT, user_member=inherited), PROJECT) == ReasonCode.DELEGATION_REQUIRED
    expired = ctx(BOT, user_member=inherited, delegations=(grant(EXPIRED),))
    assert read(expired, PROJECT) == ReasonCode.DELEGATION_EXPIRED
    live = ctx(BOT, user_member=inherited, delegations=(grant(LIVE),))
    assert read(live, PROJECT) == ReasonCode.ALLOWED


def test_a_delegation_must_name_this_agent_and_this_user() -> None:
    inherited = {PROJECT: SpaceRole.WRITER}
    for wrong in (grant(LIVE, agent="bot2"), grant(LIVE, user="bob")):
        c = ctx(BOT, user_member=inherited, delegations=(wrong,))
        assert read(c, PROJECT) == ReasonCode.DELEGATION_REQUIRED


def test_one_live_grant_among_expired_ones_is_enough() -> None:
    c = ctx(BOT, user_member={PROJECT: SpaceRole.READER}, delegations=(grant(EXPIRED), grant(LIVE)))
    assert read(c, PROJECT) == ReasonCode.ALLOWED


def test_a_user_does_not_inherit_anything() -> None:
    # user_memberships mean nothing to a user (only agents inherit)
    assert read(ctx(ALICE, user_member={PROJECT: SpaceRole.OWNER}), PROJECT) == (
        ReasonCode.UNVERIFIED_MEMBERSHIP
    )


def test_delegated_scope_read_by_an_agent_needs_a_live_delegation() -> None:
    own = {DELEGATED: SpaceRole.READER}
    assert read(ctx(BOT, member=own), DELEGATED) == ReasonCode.DELEGATION_REQUIRED
    assert read(ctx(BOT, member=own, delegations=(grant(EXPIRED),)), DELEGATED) == (
        ReasonCode.DELEGATION_EXPIRED
    )
    assert read(ctx(BOT, member=own, delegations=(grant(LIVE),)), DELEGATED) == ReasonCode.ALLOWED
    # a user member needs no delegation for it
    assert read(ctx(ALICE, member=own), DELEGATED) == ReasonCode.ALLOWED


# -- read: private memory --------------------------------------------------------


def test_a_user_reads_own_private_memory_only() -> None:
    assert read(ctx(ALICE), private("alice")) == ReasonCode.ALLOWED
    assert read(ctx(ALICE), private("bob")) == ReasonCode.PRINCIPAL_MISMATCH
    assert read(ctx(ALICE, role=OrgRole.OWNER), private("bob")) == ReasonCode.PRINCIPAL_MISMATCH


def test_a_user_reads_own_agents_diaries_but_not_others() -> None:
    c = ctx(ALICE, own_agents=frozenset({"bot"}))
    assert read(c, private("bot")) == ReasonCode.ALLOWED
    assert read(c, private("bot2")) == ReasonCode.PRINCIPAL_MISMATCH
    assert read(ctx(BOB), private("bot")) == ReasonCode.PRINCIPAL_MISMATCH


def test_an_agent_reads_its_own_diary_without_delegation() -> None:
    assert read(ctx(BOT), private("bot")) == ReasonCode.ALLOWED


def test_an_agent_reads_no_other_agents_diary() -> None:
    assert read(ctx(BOT, delegations=(grant(LIVE),)), private("bot2")) == (
        ReasonCode.PRINCIPAL_MISMATCH
    )
    assert read(ctx(BOT, delegations=(grant(LIVE),)), private("bob")) == (
        ReasonCode.PRINCIPAL_MISMATCH
    )


def test_an_agent_reads_its_users_private_memory_only_with_a_live_delegation() -> None:
    assert read(ctx(BOT), private("alice")) == ReasonCode.DELEGATION_REQUIRED
    assert read(ctx(BOT, delegations=(grant(EXPIRED),)), private("alice")) == (
        ReasonCode.DELEGATION_EXPIRED
    )
    assert read(ctx(BOT, delegations=(grant(LIVE),)), private("alice")) == ReasonCode.ALLOWED


def test_private_memory_without_owner_is_for_the_org_owner_only() -> None:
    legacy = private(None)
    assert read(ctx(ALICE, role=OrgRole.OWNER), legacy) == ReasonCode.ALLOWED
    assert read(ctx(ALICE, role=OrgRole.ADMIN), legacy) == ReasonCode.PRINCIPAL_MISMATCH
    assert read(ctx(ALICE), legacy) == ReasonCode.PRINCIPAL_MISMATCH
    # an agent never inherits its user's org role
    owner_bot = ctx(BOT, role=OrgRole.OWNER, delegations=(grant(LIVE),))
    assert read(owner_bot, legacy) == ReasonCode.PRINCIPAL_MISMATCH
    # and nobody writes there
    assert write(ctx(ALICE, role=OrgRole.OWNER), legacy) == ReasonCode.PRINCIPAL_MISMATCH


# -- read: lifecycle ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("state", "reason"),
    [
        (LifecycleState.ACTIVE, ReasonCode.ALLOWED),
        (LifecycleState.SUPERSEDED, ReasonCode.ALLOWED),
        (LifecycleState.DUPLICATE, ReasonCode.ALLOWED),
        (LifecycleState.HIDDEN, ReasonCode.HIDDEN_SOURCE),
        (LifecycleState.REDACTED, ReasonCode.REDACTED_SOURCE),
        (LifecycleState.DELETED, ReasonCode.SOURCE_DELETED),
    ],
)
def test_lifecycle_withholds_text_of_readable_spaces(state: LifecycleState, reason: str) -> None:
    assert read(ctx(ALICE), private("alice"), state) == reason


def test_scope_denial_wins_over_lifecycle() -> None:
    assert read(ctx(BOB), private("alice"), LifecycleState.HIDDEN) == ReasonCode.PRINCIPAL_MISMATCH


# -- write -------------------------------------------------------------------------


def test_private_writes_go_to_the_owner_only() -> None:
    assert write(ctx(ALICE), private("alice")) == ReasonCode.ALLOWED
    assert write(ctx(ALICE), private("bob")) == ReasonCode.PRINCIPAL_MISMATCH
    # a user reads their agent's diary but does not write in it
    assert write(ctx(ALICE, own_agents=frozenset({"bot"})), private("bot")) == (
        ReasonCode.PRINCIPAL_MISMATCH
    )
    assert write(ctx(BOT), private("bot")) == ReasonCode.ALLOWED
    assert write(ctx(BOT, delegations=(grant(LIVE),)), private("bot2")) == (
        ReasonCode.PRINCIPAL_MISMATCH
    )


def test_an_agent_writes_its_users_private_memory_only_with_a_live_delegation() -> None:
    assert write(ctx(BOT), private("alice")) == ReasonCode.DELEGATION_REQUIRED
    assert write(ctx(BOT, delegations=(grant(EXPIRED),)), private("alice")) == (
        ReasonCode.DELEGATION_EXPIRED
    )
    assert write(ctx(BOT, delegations=(grant(LIVE),)), private("alice")) == ReasonCode.ALLOWED


@pytest.mark.parametrize("ref", [TEAM, SHARED, ORG, PUBLIC])
def test_writes_need_an_enabled_space_first(ref: ScopeRef) -> None:
    owner = {ref: SpaceRole.OWNER}
    assert write(ctx(member=owner), ref) == ReasonCode.SCOPE_DISABLED
    assert write(ctx(role=OrgRole.OWNER), ref) == ReasonCode.SCOPE_DISABLED
    assert write(ctx(member=owner, enabled=frozenset({ref})), ref) == ReasonCode.ALLOWED


@pytest.mark.parametrize("ref", [PROJECT, DELEGATED])
def test_project_and_delegated_writes_need_no_enabling(ref: ScopeRef) -> None:
    assert write(ctx(member={ref: SpaceRole.WRITER}), ref) == ReasonCode.ALLOWED


@pytest.mark.parametrize("ref", [PROJECT, TEAM, SHARED, DELEGATED, ORG, PUBLIC])
def test_writes_need_a_membership_and_a_writing_role(ref: ScopeRef) -> None:
    enabled = frozenset({ref})
    assert write(ctx(enabled=enabled), ref) == ReasonCode.UNVERIFIED_MEMBERSHIP
    assert write(ctx(member={ref: SpaceRole.READER}, enabled=enabled), ref) == (
        ReasonCode.INSUFFICIENT_ROLE
    )
    for role in (SpaceRole.WRITER, SpaceRole.OWNER):
        assert write(ctx(member={ref: role}, enabled=enabled), ref) == ReasonCode.ALLOWED


@pytest.mark.parametrize("role", [OrgRole.OWNER, OrgRole.ADMIN])
def test_org_admins_write_enabled_open_spaces_without_membership(role: OrgRole) -> None:
    for ref in (ORG, PUBLIC):
        assert write(ctx(role=role, enabled=frozenset({ref})), ref) == ReasonCode.ALLOWED
    # but not keyed spaces
    assert write(ctx(role=role, enabled=frozenset({TEAM})), TEAM) == (
        ReasonCode.UNVERIFIED_MEMBERSHIP
    )
    assert write(ctx(role=role), PROJECT) == ReasonCode.UNVERIFIED_MEMBERSHIP


def test_an_admin_keeps_the_admin_write_right_despite_a_reader_membership() -> None:
    c = ctx(role=OrgRole.ADMIN, member={ORG: SpaceRole.READER}, enabled=frozenset({ORG}))
    assert write(c, ORG) == ReasonCode.ALLOWED
    member = ctx(member={ORG: SpaceRole.READER}, enabled=frozenset({ORG}))
    assert write(member, ORG) == ReasonCode.INSUFFICIENT_ROLE


def test_an_agent_never_writes_open_spaces_on_its_users_admin_role() -> None:
    c = ctx(BOT, role=OrgRole.OWNER, delegations=(grant(LIVE),), enabled=frozenset({ORG}))
    assert write(c, ORG) == ReasonCode.UNVERIFIED_MEMBERSHIP


def test_an_agent_writes_with_inherited_memberships_only_while_delegated() -> None:
    inherited = {TEAM: SpaceRole.WRITER}
    enabled = frozenset({TEAM})
    assert write(ctx(BOT, user_member=inherited, enabled=enabled), TEAM) == (
        ReasonCode.DELEGATION_REQUIRED
    )
    expired = ctx(BOT, user_member=inherited, enabled=enabled, delegations=(grant(EXPIRED),))
    assert write(expired, TEAM) == ReasonCode.DELEGATION_EXPIRED
    live = ctx(BOT, user_member=inherited, enabled=enabled, delegations=(grant(LIVE),))
    assert write(live, TEAM) == ReasonCode.ALLOWED
    reader = ctx(
        BOT, user_member={TEAM: SpaceRole.READER}, enabled=enabled, delegations=(grant(LIVE),)
    )
    assert write(reader, TEAM) == ReasonCode.INSUFFICIENT_ROLE


def test_an_agent_uses_the_stronger_of_its_own_and_its_users_membership() -> None:
    c = ctx(
        BOT,
        member={PROJECT: SpaceRole.READER},
        user_member={PROJECT: SpaceRole.OWNER},
        delegations=(grant(LIVE),),
    )
    assert write(c, PROJECT) == ReasonCode.ALLOWED
    undelegated = ctx(
        BOT, member={PROJECT: SpaceRole.READER}, user_member={PROJECT: SpaceRole.OWNER}
    )
    assert write(undelegated, PROJECT) == ReasonCode.INSUFFICIENT_ROLE
    assert read(undelegated, PROJECT) == ReasonCode.ALLOWED


def test_organisation_and_public_spaces_take_no_key() -> None:
    keyed = ScopeRef(MemoryScope.ORGANIZATION, "x")
    assert read(ctx(), keyed) == ReasonCode.UNVERIFIED_MEMBERSHIP
    assert read(ctx(), ScopeRef(MemoryScope.PUBLIC, "x")) == ReasonCode.UNVERIFIED_MEMBERSHIP


def test_delegated_scope_writes_by_an_agent_need_a_live_delegation() -> None:
    own = {DELEGATED: SpaceRole.WRITER}
    assert write(ctx(BOT, member=own), DELEGATED) == ReasonCode.DELEGATION_REQUIRED
    assert write(ctx(BOT, member=own, delegations=(grant(EXPIRED),)), DELEGATED) == (
        ReasonCode.DELEGATION_EXPIRED
    )
    assert write(ctx(BOT, member=own, delegations=(grant(LIVE),)), DELEGATED) == (
        ReasonCode.ALLOWED
    )
    # the role is checked before the delegation
    reader = ctx(BOT, member={DELEGATED: SpaceRole.READER}, delegations=(grant(LIVE),))
    assert write(reader, DELEGATED) == ReasonCode.INSUFFICIENT_ROLE


# -- share and reflect ---------------------------------------------------------------


def test_share_within_one_space_needs_read_and_write_only() -> None:
    c = ctx(member={PROJECT: SpaceRole.WRITER})
    assert authorize_share(c, PROJECT, PROJECT).allowed


def test_share_to_a_narrower_space_needs_no_promotion() -> None:
    c = ctx(member={PROJECT: SpaceRole.READER})
    decision = authorize_share(c, PROJECT, private("alice"))
    assert (decision.allowed, decision.scope, decision.scope_key) == (
        True,
        MemoryScope.PRIVATE,
        "alice",
    )


def test_share_to_an_as_broad_or_broader_space_needs_a_promotion() -> None:
    other_project = ScopeRef(MemoryScope.PROJECT, "other")
    c = ctx(
        member={p: SpaceRole.WRITER for p in (PROJECT, TEAM, other_project)},
        enabled=frozenset({TEAM}),
    )
    for target in (TEAM, other_project):  # broader, and another space as broad
        denial = authorize_share(c, PROJECT, target)
        assert denial.reason == ReasonCode.SCOPE_CROSSING_REQUIRES_PROMOTION
        assert (denial.scope, denial.scope_key) == (target.scope, target.scope_key)
        assert authorize_share(c, PROJECT, target, promoted=True).allowed
    # private -> private of the same owner is the same space
    assert authorize_share(ctx(), private("alice"), private("alice")).allowed


def test_share_reports_the_read_denial_first_then_the_write_denial() -> None:
    c = ctx(member={TEAM: SpaceRole.WRITER})
    assert authorize_share(c, PROJECT, TEAM).reason == ReasonCode.UNVERIFIED_MEMBERSHIP
    assert authorize_share(c, PROJECT, TEAM).scope is MemoryScope.PROJECT
    c = ctx(member={PROJECT: SpaceRole.WRITER})
    denial = authorize_share(c, PROJECT, TEAM, promoted=True)
    assert (denial.reason, denial.scope) == (ReasonCode.SCOPE_DISABLED, MemoryScope.TEAM)


def test_reflect_needs_every_input_readable_and_no_broadening() -> None:
    c = ctx(
        member={PROJECT: SpaceRole.WRITER, TEAM: SpaceRole.WRITER},
        enabled=frozenset({TEAM}),
    )
    # a summary of project memory kept in the project: fine
    assert authorize_reflect(c, [PROJECT, PROJECT], PROJECT).allowed
    # private + project inputs summarised into the project: private would be broadened
    mixed = authorize_reflect(c, [PROJECT, private("alice")], PROJECT)
    assert mixed.reason == ReasonCode.SCOPE_CROSSING_REQUIRES_PROMOTION
    # ... unless the caller promotes explicitly (and may read and write both)
    assert authorize_reflect(c, [PROJECT, private("alice")], PROJECT, promoted=True).allowed
    # an explicit promotion still needs the target writable
    denied = authorize_reflect(c, [PROJECT], ORG, promoted=True)
    assert denied.reason == ReasonCode.SCOPE_DISABLED
    # an unreadable input
    assert authorize_reflect(c, [SHARED], PROJECT).reason == ReasonCode.UNVERIFIED_MEMBERSHIP
    # a narrower output: allowed
    assert authorize_reflect(c, [TEAM, PROJECT], private("alice")).allowed
    # no inputs: the output still has to be writable
    assert authorize_reflect(c, [], ORG).reason == ReasonCode.SCOPE_DISABLED
    assert authorize_reflect(c, [], PROJECT).allowed


# -- readable_spaces -------------------------------------------------------------------


def test_readable_spaces_of_a_user() -> None:
    c = ctx(
        ALICE,
        member={PROJECT: SpaceRole.READER},
        own_agents=frozenset({"bot"}),
    )
    assert readable_spaces(c) == {ORG, PUBLIC, private("alice"), private("bot"), PROJECT}


def test_readable_spaces_of_the_org_owner_include_legacy_private_rows() -> None:
    c = ctx(ALICE, role=OrgRole.OWNER)
    assert readable_spaces(c) == {ORG, PUBLIC, private("alice"), private(None)}


def test_readable_spaces_of_an_agent_follow_its_delegation() -> None:
    member = {PROJECT: SpaceRole.READER, DELEGATED: SpaceRole.READER}
    user_member = {TEAM: SpaceRole.READER}
    without = ctx(BOT, member=member, user_member=user_member)
    assert readable_spaces(without) == {ORG, PUBLIC, private("bot"), PROJECT}
    live = ctx(BOT, member=member, user_member=user_member, delegations=(grant(LIVE),))
    assert readable_spaces(live) == {
        ORG,
        PUBLIC,
        private("bot"),
        private("alice"),
        PROJECT,
        DELEGATED,
        TEAM,
    }


def test_readable_spaces_agree_with_authorize_read() -> None:
    c = ctx(
        BOT,
        member={PROJECT: SpaceRole.READER},
        user_member={TEAM: SpaceRole.READER, SHARED: SpaceRole.OWNER},
        delegations=(grant(EXPIRED),),
    )
    visible = readable_spaces(c)
    for ref in (ORG, PUBLIC, PROJECT, TEAM, SHARED, DELEGATED, private("alice"), private("bot")):
        assert (ref in visible) == authorize_read(c, ref).allowed


def test_a_claimed_agent_must_be_the_keys_own_agent() -> None:
    import msgspec

    as_user = msgspec.structs.replace(ctx(ALICE), claimed_agent="bot")
    assert read(as_user, private("alice")) == ReasonCode.AGENT_IDENTITY_REQUIRED
    assert write(as_user, private("alice")) == ReasonCode.AGENT_IDENTITY_REQUIRED
    other = msgspec.structs.replace(ctx(BOT), claimed_agent="another-bot")
    assert read(other, private("bot")) == ReasonCode.AGENT_IDENTITY_REQUIRED
    same = msgspec.structs.replace(ctx(BOT), claimed_agent="bot")
    assert read(same, private("bot")) == ReasonCode.ALLOWED
    assert readable_spaces(as_user) == frozenset()
    assert caller_problem(as_user) == ReasonCode.AGENT_IDENTITY_REQUIRED
    assert caller_problem(same) is None
    assert caller_problem(ctx(None)) == ReasonCode.MISSING_ACTOR
