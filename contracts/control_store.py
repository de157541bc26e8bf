"""The behaviour every ``ControlStore`` adapter owes the trust layer, as a reusable pytest suite.

Why a suite: authentication and policy are tested against the in-memory fake,
so the fake and every real store must agree on each promise they lean on —
exact round-trips (a SCHEMAFULL table silently drops fields it does not
know), uniqueness enforced by the store, organisations isolated, a revoked
key staying revoked at its first revocation time.

Usage: subclass it in a test module and provide an async fixture ``store``
that yields a fresh, empty store and closes it afterwards::

    class TestMyControlStore(ControlStoreContract):
        @pytest.fixture
        async def store(self) -> AsyncIterator[ControlStore]:
            s = MyControlStore()
            yield s
            await s.close()

Ids are unique across the control plane (a key is found by its id alone);
lists are ordered by id. The uniqueness/isolation half of the suite lives in
``contracts/control_store_rules.py``; this class includes it.
"""

from datetime import UTC, datetime, timedelta

import msgspec

from application.trust.ports import ControlStore
from contracts.control_samples import (
    AT,
    ORG_A,
    ORG_B,
    delegation,
    key,
    membership,
    org,
    principal,
    space,
)
from contracts.control_store_rules import ControlStoreRulesContract
from domain.errors import InvalidInputError
from domain.policy import OrgRole, SpaceRole
from domain.scopes import MemoryScope, ScopeRef

__all__ = ["ControlStoreContract"]


def _aware(*values: datetime | None) -> None:
    for value in values:
        assert value is None or value.utcoffset() is not None


class ControlStoreContract(ControlStoreRulesContract):
    """Subclass (as ``Test...``) and provide a ``store`` fixture."""

    def test_is_a_control_store(self, store: ControlStore) -> None:
        assert isinstance(store, ControlStore)

    async def test_organization_round_trips(self, store: ControlStore) -> None:
        want = org(ORG_A, "Ünïcode 'Acme' \"EU\"")
        await store.add_organization(want)
        for got in (
            await store.get_organization(ORG_A),
            await store.find_organization(want.name),
        ):
            assert got == want  # datetimes compare as instants
            assert got is not None
            _aware(got.created_at)
        assert await store.list_organizations() == [want]

    async def test_principals_round_trip_every_field(self, store: ControlStore) -> None:
        user = principal("u1", name="Zoë O'Neil", role=OrgRole.OWNER)
        agent = principal("a1", name="assistant ✓", acting_for="u1", role=OrgRole.ADMIN)
        plain = principal("u2")
        for p in (user, agent, plain):
            await store.add_principal(p)
        for p in (user, agent, plain):
            got = await store.get_principal(ORG_A, p.principal_id)
            assert got == p
            assert got is not None
            _aware(got.created_at)
            assert await store.find_principal(ORG_A, p.name) == p
        assert await store.list_principals(ORG_A) == [agent, user, plain]

    async def test_keys_round_trip_every_field(self, store: ControlStore) -> None:
        live = key("k1", principal_id="u1")
        revoked = key("k2", principal_id="a1", revoked_at=AT + timedelta(minutes=5))
        await store.add_key(live)
        await store.add_key(revoked)
        got_live, got_revoked = await store.get_key("k1"), await store.get_key("k2")
        assert got_live == live
        assert got_live is not None
        assert got_live.revoked_at is None
        assert not got_live.revoked
        assert got_revoked == revoked
        assert got_revoked is not None
        assert got_revoked.revoked
        _aware(got_live.created_at, got_revoked.created_at, got_revoked.revoked_at)
        assert await store.list_keys(ORG_A) == [live, revoked]

    async def test_spaces_round_trip_every_field(self, store: ControlStore) -> None:
        keyed = space("s1", scope=MemoryScope.TEAM, scope_key="team/ü x", writes_enabled=True)
        keyless = space("s2", scope=MemoryScope.ORGANIZATION, scope_key=None)
        for s in (keyed, keyless):
            await store.add_space(s)
        for s in (keyed, keyless):
            got = await store.get_space(ORG_A, s.space_id)
            assert got == s
            assert got is not None
            _aware(got.created_at)
            assert await store.find_space(ORG_A, s.ref) == s
        assert await store.list_spaces(ORG_A) == [keyed, keyless]

    async def test_memberships_round_trip_every_field(self, store: ControlStore) -> None:
        owner = membership("s1", "u1", role=SpaceRole.OWNER)
        writer = membership("s2", "u1", role=SpaceRole.WRITER)
        reader = membership("s1", "u2", role=SpaceRole.READER)
        for m in (writer, reader, owner):
            await store.put_membership(m)
        assert await store.memberships_of(ORG_A, "u1") == [owner, writer]
        assert await store.memberships_of(ORG_A, "u2") == [reader]
        assert await store.members_of(ORG_A, "s1") == [owner, reader]
        assert await store.members_of(ORG_A, "s2") == [writer]
        for m in await store.members_of(ORG_A, "s1"):
            _aware(m.added_at)

    async def test_delegations_round_trip_and_include_expired(self, store: ControlStore) -> None:
        live = delegation("d1", "a1", expires_at=datetime(2999, 1, 1, tzinfo=UTC))
        expired = delegation("d2", "a1", user_id="u2", expires_at=AT - timedelta(days=1))
        other_agent = delegation("d3", "a2")
        for d in (expired, other_agent, live):
            await store.add_delegation(d)
        got = await store.delegations_of(ORG_A, "a1")
        assert got == [live, expired]
        for d in got:
            _aware(d.expires_at, d.created_at)
        assert await store.delegations_of(ORG_A, "a2") == [other_agent]
        assert await store.delegations_of(ORG_A, "nobody") == []

    async def test_unknown_ids_and_names_answer_none(self, store: ControlStore) -> None:
        await store.add_organization(org(ORG_A))
        assert await store.get_organization("missing") is None
        assert await store.find_organization("missing") is None
        assert await store.get_principal(ORG_A, "missing") is None
        assert await store.find_principal(ORG_A, "missing") is None
        assert await store.get_key("missing") is None
        assert await store.get_space(ORG_A, "missing") is None
        assert await store.find_space(ORG_A, ScopeRef(MemoryScope.PUBLIC)) is None
        assert await store.list_principals(ORG_A) == []
        assert await store.list_keys(ORG_A) == []
        assert await store.list_spaces(ORG_A) == []
        assert await store.memberships_of(ORG_A, "missing") == []
        assert await store.members_of(ORG_A, "missing") == []

    async def test_an_empty_store_lists_nothing(self, store: ControlStore) -> None:
        assert await store.list_organizations() == []
        assert await store.get_key("k1") is None

    async def test_revoke_keeps_the_first_time(self, store: ControlStore) -> None:
        await store.add_key(key("k1"))
        first = AT + timedelta(hours=1)
        revoked = await store.revoke_key("k1", first)
        assert revoked == key("k1", revoked_at=first)
        again = await store.revoke_key("k1", first + timedelta(hours=1))
        assert again == revoked
        assert await store.get_key("k1") == revoked
        assert await store.revoke_key("missing", first) is None
        assert await store.get_key("missing") is None

    async def test_revoke_delegation_keeps_the_first_time(self, store: ControlStore) -> None:
        await store.add_delegation(delegation("d1", "a1"))
        await store.add_delegation(delegation("d2", "a2", ORG_B))
        first = AT + timedelta(hours=1)
        revoked = await store.revoke_delegation(ORG_A, "d1", first)
        assert revoked == msgspec.structs.replace(delegation("d1", "a1"), revoked_at=first)
        assert revoked is not None
        _aware(revoked.revoked_at)
        assert not revoked.live_at(AT + timedelta(minutes=1))  # ended, though not expired
        again = await store.revoke_delegation(ORG_A, "d1", first + timedelta(hours=1))
        assert again == revoked
        assert await store.delegations_of(ORG_A, "a1") == [revoked]
        # another organisation's delegation, or an unknown one: nothing to revoke
        assert await store.revoke_delegation(ORG_A, "d2", first) is None
        assert await store.delegations_of(ORG_B, "a2") == [delegation("d2", "a2", ORG_B)]
        assert await store.revoke_delegation(ORG_A, "missing", first) is None
        assert await store.delegations_of(ORG_A, "missing") == []

    async def test_set_writes_enabled(self, store: ControlStore) -> None:
        await store.add_space(space("s1"))
        on = await store.set_writes_enabled(ORG_A, "s1", True)
        assert on == space("s1", writes_enabled=True)
        assert await store.get_space(ORG_A, "s1") == on
        assert await store.find_space(ORG_A, on.ref) == on
        off = await store.set_writes_enabled(ORG_A, "s1", False)
        assert off == space("s1", writes_enabled=False)
        assert await store.get_space(ORG_A, "s1") == off
        assert await store.set_writes_enabled(ORG_A, "missing", True) is None

    async def test_put_membership_replaces_the_role(self, store: ControlStore) -> None:
        await store.put_membership(membership("s1", "u1", role=SpaceRole.READER))
        promoted = membership("s1", "u1", role=SpaceRole.OWNER)
        await store.put_membership(promoted)
        assert await store.members_of(ORG_A, "s1") == [promoted]
        assert await store.memberships_of(ORG_A, "u1") == [promoted]

    async def test_naive_datetimes_are_refused(self, store: ControlStore) -> None:
        import pytest  # here, not at the top: importing the suite needs no pytest

        naive = datetime(2026, 3, 1, 12, 0)  # no tzinfo: the point of the test
        with pytest.raises(InvalidInputError):
            await store.add_key(key("k1", revoked_at=naive))
        assert await store.get_key("k1") is None
        await store.add_key(key("k2"))
        with pytest.raises(InvalidInputError):
            await store.revoke_key("k2", naive)
        assert await store.get_key("k2") == key("k2")

    async def test_remove_organization_removes_only_its_rows(self, store: ControlStore) -> None:
        for org_id, n in ((ORG_A, "a"), (ORG_B, "b")):
            await store.add_organization(org(org_id))
            await store.add_principal(principal(f"u-{n}", org_id))
            await store.add_key(key(f"k-{n}", org_id, principal_id=f"u-{n}"))
            await store.add_space(space(f"s-{n}", org_id))
            await store.put_membership(membership(f"s-{n}", f"u-{n}", org_id))
            await store.add_delegation(delegation(f"d-{n}", f"a-{n}", org_id))
        await store.remove_organization(ORG_A)
        assert await store.get_organization(ORG_A) is None
        assert await store.list_principals(ORG_A) == []
        assert await store.get_key("k-a") is None
        assert await store.list_keys(ORG_A) == []
        assert await store.list_spaces(ORG_A) == []
        assert await store.members_of(ORG_A, "s-a") == []
        assert await store.delegations_of(ORG_A, "a-a") == []
        assert await store.list_organizations() == [org(ORG_B)]
        assert [p.principal_id for p in await store.list_principals(ORG_B)] == ["u-b"]
        assert await store.get_key("k-b") == key("k-b", ORG_B, principal_id="u-b")
        assert len(await store.list_spaces(ORG_B)) == 1
        assert len(await store.members_of(ORG_B, "s-b")) == 1
        assert len(await store.delegations_of(ORG_B, "a-b")) == 1
        await store.remove_organization("no-such-org")  # a no-op
