"""Path imports: an organisation's owner as themselves, else whom an operator approved."""

from datetime import UTC, datetime, timedelta

import pytest

from domain.models import Principal, PrincipalKind
from domain.policy import (
    Delegation,
    MemoryPolicyContext,
    OrgRole,
    Surface,
    authorize_path_import,
)
from domain.reasons import ReasonCode

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
OWNER = Principal(principal_id="ana")
AGENT = Principal(principal_id="bot", kind=PrincipalKind.AGENT, acting_for="ana")


def ctx(
    actor: Principal | None,
    role: OrgRole = OrgRole.MEMBER,
    org: str = "acme",
    surface: Surface = Surface.API,
    claimed_agent: str | None = None,
) -> MemoryPolicyContext:
    return MemoryPolicyContext(
        org_id=org,
        actor=actor,
        surface=surface,
        now=NOW,
        org_role=role,
        delegations=(Delegation(user_id="ana", agent_id="bot", expires_at=NOW + timedelta(1)),),
        claimed_agent=claimed_agent,
    )


@pytest.mark.parametrize("surface", list(Surface))
def test_an_organisations_owner_may_import_by_path_on_every_surface(surface: Surface) -> None:
    assert authorize_path_import(ctx(OWNER, OrgRole.OWNER, surface=surface)) is ReasonCode.ALLOWED


@pytest.mark.parametrize("role", [OrgRole.MEMBER, OrgRole.ADMIN])
def test_members_and_admins_are_refused_unless_approved(role: OrgRole) -> None:
    bob = Principal(principal_id="bob")
    assert authorize_path_import(ctx(bob, role)) is ReasonCode.PATH_IMPORT_NOT_ALLOWED
    assert authorize_path_import(ctx(bob, role), {("acme", "bob")}) is ReasonCode.ALLOWED


def test_an_agent_is_refused_even_with_a_live_delegation_from_the_owner() -> None:
    # administering memory through a delegation is not reading the server's disk
    assert authorize_path_import(ctx(AGENT)) is ReasonCode.PATH_IMPORT_NOT_ALLOWED
    assert authorize_path_import(ctx(AGENT), {("acme", "bot")}) is ReasonCode.ALLOWED


def test_an_approval_holds_in_its_own_organisation_only() -> None:
    bob = Principal(principal_id="bob")
    approved = {("rival", "bob")}
    assert authorize_path_import(ctx(bob), approved) is ReasonCode.PATH_IMPORT_NOT_ALLOWED
    assert authorize_path_import(ctx(bob, org="rival"), approved) is ReasonCode.ALLOWED


def test_no_actor_or_a_false_agent_claim_is_refused_first() -> None:
    assert authorize_path_import(ctx(None)) is ReasonCode.MISSING_ACTOR
    assert authorize_path_import(ctx(None, surface=Surface.JOB)) is (
        ReasonCode.JOB_POLICY_CONTEXT_MISSING
    )
    claimed = ctx(OWNER, OrgRole.OWNER, claimed_agent="bot")
    assert authorize_path_import(claimed, {("acme", "ana")}) is ReasonCode.AGENT_IDENTITY_REQUIRED
