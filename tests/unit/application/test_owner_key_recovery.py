"""An install cannot lock itself out.

The owner could revoke its own last key: every request was 401 after that and
nothing recovered it. Now the last live owner key of an organisation cannot be
revoked, and the operator holding the data directory can always issue a new one.
"""

import pytest

from domain.errors import AuthenticationError, ConflictError
from domain.policy import OrgRole, Surface
from domain.reasons import ReasonCode
from tests.support.world import World

CLI = Surface.CLI


async def test_the_last_owner_key_cannot_be_revoked_by_anyone() -> None:
    world = World()
    issued = await world.services.open(CLI)
    assert issued is not None
    owner = (await world.services.access.authenticate(issued.key)).principal
    for admin in (owner, None):
        with pytest.raises(ConflictError) as caught:
            await world.services.control.revoke_key(issued.key_id, admin, Surface.API)
        assert caught.value.reason is ReasonCode.LAST_OWNER_KEY
    await world.services.access.authenticate(issued.key)  # still works


async def test_an_owner_key_can_be_revoked_while_another_owner_key_lives() -> None:
    world = World()
    issued = await world.services.open(CLI)
    assert issued is not None
    owner = (await world.services.access.authenticate(issued.key)).principal
    second = await world.services.control.create_key("home", owner.principal_id, owner, CLI)
    await world.services.control.revoke_key(issued.key_id, owner, CLI)
    with pytest.raises(AuthenticationError):
        await world.services.access.authenticate(issued.key)
    with pytest.raises(ConflictError):
        await world.services.control.revoke_key(second.key_id, owner, CLI)


async def test_the_rule_holds_in_every_organisation_and_only_for_owners() -> None:
    world = World()
    org = await world.org("acme")
    boss = await world.user(org, "boss", OrgRole.OWNER)
    ana = await world.user(org, "ana")
    boss_key, ana_key = await world.key(boss), await world.key(ana)
    await world.services.control.revoke_key(ana_key.split("_")[1], None, CLI)
    with pytest.raises(ConflictError):
        await world.services.control.revoke_key(boss_key.split("_")[1], None, CLI)


async def test_the_operator_recovers_a_new_owner_key_and_it_is_audited() -> None:
    world = World()
    issued = await world.services.open(CLI)
    assert issued is not None
    recovered = await world.services.control.recover_owner_key(CLI)
    assert recovered.key != issued.key and recovered.org_id == "home"
    caller = await world.services.access.authenticate(recovered.key)
    assert caller.principal.org_role is OrgRole.OWNER
    await world.services.audit.flush()
    actions = [r.action for r in await world.services.audit.recent("home", 10)]
    assert "admin.key.recover" in actions
