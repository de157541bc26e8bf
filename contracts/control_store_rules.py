"""The second half of the ControlStore contract: uniqueness and isolation.

Kept apart from the round-trip half (``contracts/control_store.py``, which
includes this class) only to keep each module small. These are the promises
whose breach lets one tenant see or shadow another: every uniqueness rule is
refused with ``ConflictError(already_exists)`` and leaves the first record
whole, and nothing of organisation B is reachable through organisation A.
"""

from collections.abc import Awaitable, Callable

import pytest

from application.trust.ports import ControlStore
from contracts.control_samples import (
    ORG_A,
    ORG_B,
    delegation,
    key,
    membership,
    org,
    principal,
    space,
)
from domain.errors import ConflictError
from domain.policy import SpaceRole
from domain.reasons import ReasonCode
from domain.scopes import MemoryScope, ScopeRef

__all__ = ["ControlStoreRulesContract"]


async def _refused(attempt: Callable[[], Awaitable[None]]) -> None:
    with pytest.raises(ConflictError) as caught:
        await attempt()
    assert caught.value.reason is ReasonCode.ALREADY_EXISTS


class ControlStoreRulesContract:
    @pytest.fixture
    def store(self) -> ControlStore:
        raise NotImplementedError("provide a `store` fixture yielding a fresh, empty ControlStore")

    async def test_organization_id_and_name_are_unique(self, store: ControlStore) -> None:
        first = org(ORG_A, "Acme")
        await store.add_organization(first)
        await _refused(lambda: store.add_organization(org(ORG_A, "Other name")))
        await _refused(lambda: store.add_organization(org(ORG_B, "Acme")))
        assert await store.list_organizations() == [first]
        await store.add_organization(org(ORG_B, "acme"))  # names are case-sensitive
        assert await store.find_organization("acme") == org(ORG_B, "acme")

    async def test_principal_id_and_name_in_org_are_unique(self, store: ControlStore) -> None:
        first = principal("u1", name="alice")
        await store.add_principal(first)
        await _refused(lambda: store.add_principal(principal("u2", name="alice")))
        await _refused(lambda: store.add_principal(principal("u1", name="bob")))
        await _refused(lambda: store.add_principal(principal("u1", ORG_B, name="carol")))
        assert await store.list_principals(ORG_A) == [first]
        assert await store.list_principals(ORG_B) == []
        other = principal("u9", ORG_B, name="alice")  # the same name in another org
        await store.add_principal(other)
        assert await store.find_principal(ORG_B, "alice") == other
        assert await store.find_principal(ORG_A, "alice") == first

    async def test_scope_and_key_name_one_space_per_org(self, store: ControlStore) -> None:
        keyed = space("s1", scope=MemoryScope.PROJECT, scope_key="p1")
        keyless = space("s2", scope=MemoryScope.ORGANIZATION, scope_key=None)
        await store.add_space(keyed)
        await store.add_space(keyless)
        await _refused(lambda: store.add_space(space("s3", scope=MemoryScope.PROJECT)))
        await _refused(
            lambda: store.add_space(space("s4", scope=MemoryScope.ORGANIZATION, scope_key=None))
        )
        await _refused(lambda: store.add_space(space("s1", scope=MemoryScope.TEAM)))
        assert await store.list_spaces(ORG_A) == [keyed, keyless]
        # the same key under another scope, an empty key, and the same pair elsewhere are new
        team = space("s5", scope=MemoryScope.TEAM, scope_key="p1")
        empty = space("s6", scope=MemoryScope.ORGANIZATION, scope_key="")
        elsewhere = space("s7", ORG_B, scope=MemoryScope.PROJECT, scope_key="p1")
        for s in (team, empty, elsewhere):
            await store.add_space(s)
        assert await store.find_space(ORG_A, ScopeRef(MemoryScope.ORGANIZATION)) == keyless
        assert await store.find_space(ORG_A, ScopeRef(MemoryScope.ORGANIZATION, "")) == empty
        assert await store.find_space(ORG_B, ScopeRef(MemoryScope.PROJECT, "p1")) == elsewhere

    async def test_key_and_delegation_ids_are_unique(self, store: ControlStore) -> None:
        await store.add_key(key("k1", principal_id="u1"))
        await _refused(lambda: store.add_key(key("k1", ORG_B, principal_id="u2")))
        assert await store.get_key("k1") == key("k1", principal_id="u1")
        await store.add_delegation(delegation("d1", "a1"))
        await _refused(lambda: store.add_delegation(delegation("d1", "a2")))
        assert await store.delegations_of(ORG_A, "a2") == []

    async def test_one_membership_per_principal_and_space(self, store: ControlStore) -> None:
        for role in (SpaceRole.WRITER, SpaceRole.READER, SpaceRole.OWNER):
            await store.put_membership(membership("s1", "u1", role=role))
        assert [m.role for m in await store.members_of(ORG_A, "s1")] == [SpaceRole.OWNER]

    async def test_organisations_are_isolated(self, store: ControlStore) -> None:
        await store.add_organization(org(ORG_A))
        await store.add_organization(org(ORG_B))
        await store.add_principal(principal("b-user", ORG_B, name="shared-name"))
        await store.add_key(key("b-key", ORG_B, principal_id="b-user"))
        b_space = space("b-space", ORG_B, scope=MemoryScope.PROJECT, scope_key="p1")
        await store.add_space(b_space)
        await store.put_membership(membership("b-space", "b-user", ORG_B))
        await store.add_delegation(delegation("b-del", "b-agent", ORG_B, user_id="b-user"))

        assert await store.get_principal(ORG_A, "b-user") is None
        assert await store.find_principal(ORG_A, "shared-name") is None
        assert await store.list_principals(ORG_A) == []
        assert await store.list_keys(ORG_A) == []
        assert await store.get_space(ORG_A, "b-space") is None
        assert await store.find_space(ORG_A, b_space.ref) is None
        assert await store.list_spaces(ORG_A) == []
        assert await store.set_writes_enabled(ORG_A, "b-space", True) is None
        assert await store.get_space(ORG_B, "b-space") == b_space
        assert await store.memberships_of(ORG_A, "b-user") == []
        assert await store.members_of(ORG_A, "b-space") == []
        assert await store.delegations_of(ORG_A, "b-agent") == []
        # B still sees its own rows
        assert [p.principal_id for p in await store.list_principals(ORG_B)] == ["b-user"]
        assert [k.key_id for k in await store.list_keys(ORG_B)] == ["b-key"]
        assert len(await store.members_of(ORG_B, "b-space")) == 1
        assert len(await store.delegations_of(ORG_B, "b-agent")) == 1
