"""Revoking one's own keys and delegations: owner-decided, previewed, token-bound.

Before, only an admin could revoke a key, without a preview, and nobody could
end a delegation before it expired.
"""

from dataclasses import dataclass

import pytest

from application.trust.records import PrincipalRecord
from application.trust.revocation import GrantState, RevokeTarget
from domain.errors import AuthenticationError, ConflictError, InvalidInputError, NotFoundError
from domain.policy import OrgRole, Surface
from domain.reasons import ReasonCode
from tests.support.world import World

WEB = Surface.WEB


@dataclass
class Acme:
    world: World
    org: str
    boss: PrincipalRecord
    ana: PrincipalRecord
    bob: PrincipalRecord
    scribe: PrincipalRecord


@pytest.fixture
async def acme() -> Acme:
    world = World()
    org = await world.org("acme")
    boss = await world.user(org, "boss", OrgRole.OWNER)
    ana = await world.user(org, "ana")
    bob = await world.user(org, "bob")
    scribe = await world.agent(org, "ana-scribe", ana)
    await world.agent(org, "bob-scribe", bob)
    for who in (boss, ana, ana, scribe, bob):
        await world.key(who)
    return Acme(world, org, boss, ana, bob, scribe)


async def _delegation_id(acme: Acme) -> str:
    (d,) = (await acme.world.services.revoker.owned(acme.ana)).delegations
    return d.delegation_id


async def test_a_person_sees_their_keys_their_agents_keys_and_their_grants(acme: Acme) -> None:
    owned = await acme.world.services.revoker.owned(acme.ana)
    assert sorted(k.principal_name for k in owned.keys) == ["ana", "ana", "ana-scribe"]
    assert [(d.user_id, d.agent_id) for d in owned.delegations] == [
        (acme.ana.principal_id, acme.scribe.principal_id)
    ]
    assert "secret_hash" not in repr(owned.keys)
    # an agent owns its key and grants nothing
    by_agent = await acme.world.services.revoker.owned(acme.scribe)
    assert [k.principal_name for k in by_agent.keys] == ["ana-scribe"]
    assert by_agent.delegations == []


async def test_revoking_a_delegation_ends_the_agents_reach_into_private_memory(
    acme: Acme,
) -> None:
    world, revoker = acme.world, acme.world.services.revoker
    await world.remember(acme.ana, "Ana's locker code is kumquat-canary.")
    assert (await world.search(acme.scribe, "locker code")).results
    delegation_id = await _delegation_id(acme)
    preview = await revoker.preview_delegation(delegation_id, acme.ana, WEB)
    assert (preview.target, preview.state, preview.agent_name) == (
        RevokeTarget.DELEGATION, GrantState.LIVE, "ana-scribe"
    )
    revoked = await revoker.revoke_delegation(delegation_id, preview.token, acme.ana, WEB)
    assert revoked.revoked_at == world.clock.now()
    assert not (await world.search(acme.scribe, "locker code")).results
    again = await revoker.preview_delegation(delegation_id, acme.ana, WEB)
    assert again.state is GrantState.REVOKED
    receipts = await world.services.audit.recent(acme.org, 50)
    actions = [r.action for r in receipts]
    assert "access.delegation.revoke" in actions
    assert "access.delegation.revoke_preview" in actions
    assert not any("kumquat" in repr(r) for r in receipts)


async def test_a_stale_or_missing_token_changes_nothing(acme: Acme) -> None:
    revoker = acme.world.services.revoker
    delegation_id = await _delegation_id(acme)
    preview = await revoker.preview_delegation(delegation_id, acme.ana, WEB)
    with pytest.raises(InvalidInputError) as missing:
        await revoker.revoke_delegation(delegation_id, None, acme.ana, WEB)
    assert missing.value.reason is ReasonCode.PREVIEW_REQUIRED
    with pytest.raises(ConflictError) as wrong:
        await revoker.revoke_delegation(delegation_id, "not-the-token", acme.ana, WEB)
    assert wrong.value.reason is ReasonCode.PREVIEW_STALE
    # revoked meanwhile (here by an admin, from a preview of their own): the first is stale
    by_boss = await revoker.preview_delegation(delegation_id, acme.boss, WEB)
    await revoker.revoke_delegation(delegation_id, by_boss.token, acme.boss, WEB)
    with pytest.raises(ConflictError) as stale:
        await revoker.revoke_delegation(delegation_id, preview.token, acme.ana, WEB)
    assert stale.value.reason is ReasonCode.PREVIEW_STALE


async def test_others_cannot_reach_what_they_do_not_own(acme: Acme) -> None:
    world, revoker = acme.world, acme.world.services.revoker
    delegation_id = await _delegation_id(acme)
    ana_key = (await revoker.owned(acme.ana)).keys[0].key_id
    for who in (acme.bob, acme.scribe):  # another member; the agent the grant is for
        with pytest.raises(NotFoundError):
            await revoker.preview_delegation(delegation_id, who, WEB)
        with pytest.raises(NotFoundError):
            await revoker.revoke_delegation(delegation_id, "x", who, WEB)
    with pytest.raises(NotFoundError):
        await revoker.preview_key(ana_key, acme.bob, WEB)
    with pytest.raises(NotFoundError):  # the agent cannot revoke its user's key
        await revoker.preview_key(ana_key, acme.scribe, WEB)
    other = await world.org("other")
    stranger = await world.user(other, "stranger", OrgRole.OWNER)
    with pytest.raises(NotFoundError):
        await revoker.preview_key(ana_key, stranger, WEB)
    # an admin of the organisation may
    assert (await revoker.preview_key(ana_key, acme.boss, WEB)).owner_name == "ana"


async def test_revoking_ones_own_key_says_it_signs_you_out_and_does(acme: Acme) -> None:
    world, revoker = acme.world, acme.world.services.revoker
    key = await world.key(acme.bob)
    key_id = key.split("_")[1]
    preview = await revoker.preview_key(key_id, acme.bob, WEB, signed_in_with=key_id)
    assert preview.signs_out_caller and preview.refused is None
    await revoker.revoke_key(key_id, preview.token, acme.bob, WEB, signed_in_with=key_id)
    with pytest.raises(AuthenticationError):
        await world.services.access.authenticate(key)


async def test_a_person_revokes_their_agents_key(acme: Acme) -> None:
    world, revoker = acme.world, acme.world.services.revoker
    key = await world.key(acme.scribe)
    key_id = key.split("_")[1]
    preview = await revoker.preview_key(key_id, acme.ana, WEB)
    assert (preview.owner_name, preview.signs_out_caller) == ("ana-scribe", False)
    await revoker.revoke_key(key_id, preview.token, acme.ana, WEB)
    with pytest.raises(AuthenticationError):
        await world.services.access.authenticate(key)


async def test_the_last_owner_key_is_refused_in_the_preview_and_the_apply(acme: Acme) -> None:
    revoker = acme.world.services.revoker
    (boss_key,) = (await revoker.owned(acme.boss)).keys
    preview = await revoker.preview_key(boss_key.key_id, acme.boss, WEB)
    assert preview.refused is ReasonCode.LAST_OWNER_KEY
    with pytest.raises(ConflictError) as refused:
        await revoker.revoke_key(boss_key.key_id, preview.token, acme.boss, WEB)
    assert refused.value.reason is ReasonCode.LAST_OWNER_KEY
    # a second owner key turns the answer, and so the token
    await acme.world.key(acme.boss)
    with pytest.raises(ConflictError) as stale:
        await revoker.revoke_key(boss_key.key_id, preview.token, acme.boss, WEB)
    assert stale.value.reason is ReasonCode.PREVIEW_STALE
    fresh = await revoker.preview_key(boss_key.key_id, acme.boss, WEB)
    assert fresh.refused is None
    revoked = await revoker.revoke_key(boss_key.key_id, fresh.token, acme.boss, WEB)
    assert revoked.revoked
