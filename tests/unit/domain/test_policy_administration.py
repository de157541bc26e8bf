"""The control-plane rules: administering an organisation is not reading its members' memory."""

import pytest

from domain.policy import OrgRole, SpaceRole
from domain.policy.administration import (
    Administrator,
    Subject,
    may_administer,
    may_change_space_role,
    may_create_agent,
    may_create_user,
    may_delegate,
    may_mint_key,
    may_revoke_key,
    owns_organization,
)
from domain.reasons import ReasonCode

A = ReasonCode.ALLOWED
OPERATOR = Administrator()
HOME_OWNER = Administrator(
    principal_id="root", org_id="home", org_role=OrgRole.OWNER, runs_install=True
)
OWNER = Administrator(principal_id="olga", org_id="acme", org_role=OrgRole.OWNER)
ADMIN = Administrator(principal_id="adam", org_id="acme", org_role=OrgRole.ADMIN)
BOB = Administrator(principal_id="bob", org_id="acme")
BOB_AGENT = Administrator(principal_id="bot", org_id="acme", is_agent=True)
EVE = Administrator(principal_id="eve", org_id="other", org_role=OrgRole.OWNER)

OLGA = Subject(principal_id="olga", org_id="acme", org_role=OrgRole.OWNER, has_held_key=True)
BOB_S = Subject(principal_id="bob", org_id="acme", has_held_key=True)
BOBS_BOT = Subject(principal_id="bot", org_id="acme", acting_for="bob", has_held_key=True)
NEW_BOT = Subject(principal_id="bot2", org_id="acme", acting_for="bob")
NEWCOMER = Subject(principal_id="nina", org_id="acme")
NEW_OWNER = Subject(principal_id="otto", org_id="acme", org_role=OrgRole.OWNER)


def test_administering_needs_an_admin_of_that_organisation() -> None:
    assert may_administer(OPERATOR, "acme") is A
    assert may_administer(HOME_OWNER, "acme") is A
    assert may_administer(ADMIN, "acme") is A
    assert may_administer(OWNER, "acme") is A
    for who, org in ((BOB, "acme"), (ADMIN, "other"), (EVE, "acme")):
        assert may_administer(who, org) is ReasonCode.ADMIN_REQUIRED
    admin_agent = Administrator(
        principal_id="x", org_id="acme", org_role=OrgRole.ADMIN, is_agent=True
    )
    assert may_administer(admin_agent, "acme") is ReasonCode.ADMIN_REQUIRED


def test_only_owners_hold_owner_powers() -> None:
    assert owns_organization(OWNER, "acme") is A
    assert owns_organization(HOME_OWNER, "acme") is A
    assert owns_organization(ADMIN, "acme") is ReasonCode.ORG_OWNER_REQUIRED
    assert owns_organization(EVE, "acme") is ReasonCode.ORG_OWNER_REQUIRED
    assert may_create_user(ADMIN, "acme", OrgRole.ADMIN) is A
    assert may_create_user(ADMIN, "acme", OrgRole.OWNER) is ReasonCode.ORG_OWNER_REQUIRED
    assert may_create_user(OWNER, "acme", OrgRole.OWNER) is A
    assert may_create_user(BOB, "acme", OrgRole.MEMBER) is ReasonCode.ADMIN_REQUIRED


def test_an_admin_cannot_mint_a_key_for_someone_who_already_has_one() -> None:
    assert may_mint_key(ADMIN, OLGA) is ReasonCode.KEY_NOT_YOURS
    assert may_mint_key(ADMIN, BOB_S) is ReasonCode.KEY_NOT_YOURS
    assert may_mint_key(HOME_OWNER, BOB_S) is ReasonCode.KEY_NOT_YOURS
    assert may_mint_key(ADMIN, BOBS_BOT) is ReasonCode.KEY_NOT_YOURS
    assert may_mint_key(ADMIN, NEW_BOT) is ReasonCode.KEY_NOT_YOURS  # agents: their user's


def test_keys_for_oneself_ones_agents_and_a_newcomers_first_key() -> None:
    assert may_mint_key(BOB, BOB_S) is A
    assert may_mint_key(BOB, BOBS_BOT) is A
    assert may_mint_key(BOB, NEW_BOT) is A
    assert may_mint_key(BOB_AGENT, BOBS_BOT) is A  # an agent adds a key of its own
    assert may_mint_key(ADMIN, NEWCOMER) is A  # onboarding
    assert may_mint_key(BOB, NEWCOMER) is ReasonCode.KEY_NOT_YOURS
    assert may_mint_key(EVE, NEWCOMER) is ReasonCode.KEY_NOT_YOURS
    assert may_mint_key(ADMIN, NEW_OWNER) is ReasonCode.ORG_OWNER_REQUIRED
    assert may_mint_key(OWNER, NEW_OWNER) is A
    assert may_mint_key(OPERATOR, OLGA) is A  # the data directory's holder
    other_bob = Subject(principal_id="bob", org_id="other")
    assert may_mint_key(BOB, other_bob) is ReasonCode.KEY_NOT_YOURS


def test_only_the_user_delegates_to_their_agent() -> None:
    assert may_delegate(BOB, BOB_S, BOBS_BOT) is A
    assert may_delegate(OPERATOR, BOB_S, BOBS_BOT) is A
    for who in (ADMIN, OWNER, HOME_OWNER, BOB_AGENT):
        assert may_delegate(who, BOB_S, BOBS_BOT) is ReasonCode.DELEGATION_NOT_YOURS
    olgas_bot = Subject(principal_id="obot", org_id="acme", acting_for="olga")
    assert may_delegate(ADMIN, OLGA, olgas_bot) is ReasonCode.DELEGATION_NOT_YOURS
    assert may_delegate(BOB, BOB_S, olgas_bot) is ReasonCode.PRINCIPAL_MISMATCH


def test_agents_are_created_by_their_user_or_an_admin() -> None:
    assert may_create_agent(BOB, BOB_S) is A
    assert may_create_agent(ADMIN, BOB_S) is A
    assert may_create_agent(BOB, OLGA) is ReasonCode.ADMIN_REQUIRED
    assert may_create_agent(BOB_AGENT, BOB_S) is ReasonCode.ADMIN_REQUIRED


def test_an_owners_key_is_revoked_only_by_an_owner() -> None:
    assert may_revoke_key(ADMIN, OLGA) is ReasonCode.ORG_OWNER_REQUIRED
    assert may_revoke_key(OWNER, OLGA) is A
    assert may_revoke_key(ADMIN, BOB_S) is A
    assert may_revoke_key(BOB, BOB_S) is A
    assert may_revoke_key(BOB, BOBS_BOT) is A
    assert may_revoke_key(BOB, OLGA) is ReasonCode.ADMIN_REQUIRED
    assert may_revoke_key(EVE, BOB_S) is ReasonCode.ADMIN_REQUIRED


@pytest.mark.parametrize(
    ("actor", "own", "current", "wanted", "expected"),
    [
        (ADMIN, None, None, SpaceRole.WRITER, A),
        (ADMIN, None, None, SpaceRole.OWNER, ReasonCode.SPACE_OWNER_REQUIRED),
        (ADMIN, None, SpaceRole.OWNER, SpaceRole.READER, ReasonCode.SPACE_OWNER_REQUIRED),
        (ADMIN, SpaceRole.WRITER, None, SpaceRole.OWNER, ReasonCode.SPACE_OWNER_REQUIRED),
        (OWNER, None, None, SpaceRole.OWNER, A),
        (BOB, SpaceRole.OWNER, None, SpaceRole.OWNER, A),
        (BOB, SpaceRole.OWNER, SpaceRole.WRITER, SpaceRole.READER, A),
        (BOB, SpaceRole.WRITER, None, SpaceRole.READER, ReasonCode.ADMIN_REQUIRED),
        (BOB_AGENT, SpaceRole.OWNER, None, SpaceRole.OWNER, ReasonCode.SPACE_OWNER_REQUIRED),
        (EVE, None, None, SpaceRole.READER, ReasonCode.ADMIN_REQUIRED),
    ],
)
def test_a_spaces_ownership_changes_only_by_owners(
    actor: Administrator,
    own: SpaceRole | None,
    current: SpaceRole | None,
    wanted: SpaceRole,
    expected: ReasonCode,
) -> None:
    assert may_change_space_role(actor, "acme", own, current, wanted) is expected
