"""Who a derived record reaches: its space, then every cited source in its current state."""

from domain.lifecycle import Mark
from domain.policy import SpaceRole
from domain.policy.reach import Cited, Reach, ReachCounts, counts_of, derived_read_reason, reach_of
from domain.reasons import ReasonCode
from domain.scopes import LifecycleState
from tests.unit.domain.test_policy import ALICE, BOB, BOT, LIVE, TEAM, ctx, grant, private

ALICE_NOTE = Cited(ref=private("alice"), lifecycle=LifecycleState.ACTIVE, owner="alice")
TEAM_NOTE = Cited(ref=TEAM, lifecycle=LifecycleState.ACTIVE, owner="bob")


def test_a_record_needs_its_space_and_every_source() -> None:
    alice = ctx(ALICE, member={TEAM: SpaceRole.READER})
    bob = ctx(BOB, member={TEAM: SpaceRole.WRITER})
    assert derived_read_reason(alice, TEAM, [ALICE_NOTE, TEAM_NOTE]) is ReasonCode.ALLOWED
    # bob reads the team space but not alice's private note the record cites
    assert derived_read_reason(bob, TEAM, [TEAM_NOTE]) is ReasonCode.ALLOWED
    assert derived_read_reason(bob, TEAM, [ALICE_NOTE]) is ReasonCode.PRINCIPAL_MISMATCH
    # the record's own space comes first
    outsider = ctx(BOB)
    assert derived_read_reason(outsider, TEAM, []) is ReasonCode.UNVERIFIED_MEMBERSHIP


def test_a_source_state_withholds_the_record() -> None:
    alice = ctx(ALICE, member={TEAM: SpaceRole.READER})
    hidden = Cited(ref=TEAM, lifecycle=LifecycleState.HIDDEN, owner="bob")
    redacted = Cited(ref=TEAM, lifecycle=LifecycleState.REDACTED, owner="bob")
    superseded = Cited(ref=TEAM, lifecycle=LifecycleState.SUPERSEDED, owner="bob")
    sensitive = Cited(
        ref=TEAM, lifecycle=LifecycleState.ACTIVE, marks=frozenset({Mark.SENSITIVE}), owner="bob"
    )
    assert derived_read_reason(alice, TEAM, [hidden]) is ReasonCode.HIDDEN_SOURCE
    assert derived_read_reason(alice, TEAM, [redacted]) is ReasonCode.REDACTED_SOURCE
    assert derived_read_reason(alice, TEAM, [superseded]) is not ReasonCode.ALLOWED
    assert derived_read_reason(alice, TEAM, [sensitive]) is ReasonCode.SENSITIVE_SOURCE
    bob = ctx(BOB, member={TEAM: SpaceRole.READER})
    assert derived_read_reason(bob, TEAM, [sensitive]) is ReasonCode.ALLOWED  # his own


def test_reach_counts_readers_of_the_space_only_by_bucket() -> None:
    alice = ctx(ALICE, member={TEAM: SpaceRole.READER})
    bob = ctx(BOB, member={TEAM: SpaceRole.WRITER})
    bot = ctx(BOT, user_member={TEAM: SpaceRole.READER}, delegations=(grant(LIVE),))
    stranger = ctx(BOB)
    found = reach_of([alice, bob, bot, stranger], TEAM, [ALICE_NOTE])
    # the agent reads alice's private note through its live delegation
    assert found[Reach.VISIBLE] == [alice, bot] and found[Reach.DENIED] == [bob]
    assert counts_of(found) == ReachCounts(visible=2, denied=1)
    hidden = Cited(ref=TEAM, lifecycle=LifecycleState.HIDDEN, owner="bob")
    redacted = Cited(ref=TEAM, lifecycle=LifecycleState.REDACTED, owner="bob")
    assert counts_of(reach_of([alice], TEAM, [hidden])) == ReachCounts(hidden=1)
    assert counts_of(reach_of([alice], TEAM, [redacted])) == ReachCounts(redacted=1)
