"""Who may correct memory, and who counts as a sensitive source's owner (authorize_correct)."""

from domain.lifecycle import RECALL_OPEN, Mark, owner_key
from domain.policy import (
    MemoryPolicyContext,
    OrgRole,
    SpaceRole,
    authorize_correct,
    authorize_read,
    recall_keys,
    recall_owners,
)
from domain.reasons import ReasonCode
from domain.scopes import LifecycleState, ScopeRef
from tests.unit.domain.test_policy import (
    ALICE,
    BOB,
    BOT,
    EXPIRED,
    LIVE,
    ORG,
    PROJECT,
    PUBLIC,
    ctx,
    grant,
    private,
)


def correct(c: MemoryPolicyContext, ref: ScopeRef) -> str:
    return str(authorize_correct(c, ref).reason)


def test_private_memory_is_corrected_by_its_owner_only() -> None:
    assert correct(ctx(ALICE), private("alice")) == "allowed"
    assert correct(ctx(BOB), private("alice")) == "principal_mismatch"
    # an organisation admin does not reach into someone's private memory
    assert correct(ctx(BOB, role=OrgRole.OWNER), private("alice")) == "principal_mismatch"


def test_an_agent_corrects_its_users_memory_only_with_a_live_delegation() -> None:
    assert correct(ctx(BOT), private("bot")) == "allowed"  # its own notes
    assert correct(ctx(BOT), private("alice")) == "delegation_required"
    assert correct(ctx(BOT, delegations=(grant(EXPIRED),)), private("alice")) == (
        "delegation_expired"
    )
    assert correct(ctx(BOT, delegations=(grant(LIVE),)), private("alice")) == "allowed"


def test_space_owners_and_writers_correct_readers_do_not() -> None:
    assert correct(ctx(ALICE, member={PROJECT: SpaceRole.WRITER}), PROJECT) == "allowed"
    assert correct(ctx(ALICE, member={PROJECT: SpaceRole.OWNER}), PROJECT) == "allowed"
    assert correct(ctx(ALICE, member={PROJECT: SpaceRole.READER}), PROJECT) == ("insufficient_role")
    assert correct(ctx(ALICE), PROJECT) == "unverified_membership"


def test_shared_agents_need_a_delegation_on_top_of_a_role() -> None:
    writer = {PROJECT: SpaceRole.WRITER}
    assert correct(ctx(BOT, member=writer), PROJECT) == "delegation_required"
    assert correct(ctx(BOT, member=writer, delegations=(grant(LIVE),)), PROJECT) == "allowed"


def test_org_admins_correct_open_spaces_members_do_not() -> None:
    assert correct(ctx(BOB, role=OrgRole.ADMIN), ORG) == "allowed"
    # administering is not membership: a project space is corrected by its writers
    assert correct(ctx(BOB, role=OrgRole.ADMIN), PROJECT) == "unverified_membership"
    assert correct(ctx(BOB, role=OrgRole.OWNER), PROJECT) == "unverified_membership"
    reader = {PROJECT: SpaceRole.READER}
    assert correct(ctx(BOB, role=OrgRole.ADMIN, member=reader), PROJECT) == "insufficient_role"
    assert correct(ctx(BOB), PUBLIC) == "insufficient_role"
    assert correct(ctx(None), ORG) == "missing_actor"


def test_sensitive_memory_is_read_by_its_owner_only() -> None:
    ref = ScopeRef(PROJECT.scope, PROJECT.scope_key)
    member = {PROJECT: SpaceRole.READER}
    sensitive = {Mark.SENSITIVE}
    alice = ctx(ALICE, member=member)
    bob = ctx(BOB, member=member)
    assert authorize_read(alice, ref, LifecycleState.ACTIVE, sensitive, "alice").allowed
    denied = authorize_read(bob, ref, LifecycleState.ACTIVE, sensitive, "alice")
    assert denied.reason is ReasonCode.SENSITIVE_SOURCE
    wrong = authorize_read(alice, ref, LifecycleState.ACTIVE, {Mark.WRONG}, "alice")
    assert wrong.reason is ReasonCode.SOURCE_MARKED_WRONG


def test_recall_owners_and_keys() -> None:
    assert recall_owners(ctx(ALICE)) == {"alice"}
    assert recall_owners(ctx(BOT)) == {"bot"}
    assert recall_owners(ctx(BOT, delegations=(grant(LIVE),))) == {"bot", "alice"}
    assert recall_keys(ctx(ALICE)) == {RECALL_OPEN, owner_key("alice")}


def _correct_source(
    c: MemoryPolicyContext, state: LifecycleState, marks: set[Mark], owner: str = "alice"
) -> str:
    return str(authorize_correct(c, PROJECT, state, marks, owner).reason)


def test_a_writer_corrects_only_sources_whose_text_it_may_read() -> None:
    bob = ctx(BOB, member={PROJECT: SpaceRole.WRITER})
    active = LifecycleState.ACTIVE
    assert _correct_source(bob, active, set()) == "allowed"
    assert _correct_source(bob, active, {Mark.STALE}) == "allowed"
    assert _correct_source(bob, LifecycleState.SUPERSEDED, set()) == "allowed"
    assert _correct_source(bob, active, {Mark.SENSITIVE}) == "sensitive_source"
    assert _correct_source(bob, active, {Mark.WRONG}) == "source_marked_wrong"
    assert _correct_source(bob, LifecycleState.HIDDEN, set()) == "hidden_source"
    assert _correct_source(bob, LifecycleState.REDACTED, set()) == "redacted_source"
    assert _correct_source(bob, LifecycleState.DELETED, set()) == "source_deleted"


def test_the_sources_owner_space_owners_and_org_owners_correct_what_others_cannot_read() -> None:
    hidden, sensitive = LifecycleState.HIDDEN, {Mark.SENSITIVE}
    alice = ctx(ALICE, member={PROJECT: SpaceRole.WRITER})
    assert _correct_source(alice, hidden, sensitive) == "allowed"  # her own source
    space_owner = ctx(BOB, member={PROJECT: SpaceRole.OWNER})
    assert _correct_source(space_owner, hidden, sensitive) == "allowed"
    org_owner = ctx(BOB, role=OrgRole.OWNER, member={PROJECT: SpaceRole.WRITER})
    assert _correct_source(org_owner, hidden, sensitive) == "allowed"
    org_admin = ctx(BOB, role=OrgRole.ADMIN, member={PROJECT: SpaceRole.WRITER})
    assert _correct_source(org_admin, hidden, sensitive) == "hidden_source"
    # an agent corrects its user's sources under a live delegation, but never oversees others'
    bot = ctx(BOT, member={PROJECT: SpaceRole.OWNER}, delegations=(grant(LIVE),))
    assert _correct_source(bot, LifecycleState.ACTIVE, sensitive) == "allowed"
    assert _correct_source(bot, LifecycleState.ACTIVE, sensitive, "carol") == "sensitive_source"
