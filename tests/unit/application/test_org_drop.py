"""Dropping an organisation: previewed, token-bound, owner-only, audited.

Before, an organisation could only be dropped by a benchmark calling the
store; its control rows stayed and its space was never given back.
"""

import pytest

from domain.errors import (
    AuthenticationError,
    ConflictError,
    NotFoundError,
    PolicyDeniedError,
)
from domain.policy import OrgRole, Surface
from domain.reasons import ReasonCode
from domain.scopes import MemoryScope
from tests.support.world import World

CLI = Surface.CLI


async def _acme(world: World) -> tuple[str, str]:
    org = await world.org("acme")
    boss = await world.user(org, "boss", OrgRole.OWNER)
    ana = await world.user(org, "ana")
    await world.space(org, MemoryScope.PROJECT, "apollo", writes=True)
    key = await world.key(boss)
    await world.remember(boss, "The release train leaves on Thursday.")
    await world.remember(ana, "Ana prefers tea.")
    return org, key


async def test_the_preview_counts_what_goes_and_the_token_applies_it() -> None:
    world = World()
    org, key = await _acme(world)
    keep = await world.org("keep")
    kept_user = await world.user(keep, "kim")
    await world.remember(kept_user, "Kim keeps this.")
    preview = await world.services.orgs.preview("acme", None, CLI)
    counts = (preview.sources, preview.principals, preview.keys, preview.spaces)
    assert counts == (2, 2, 1, 1) and preview.chunks >= 2
    result = await world.services.orgs.drop("acme", preview.token, None, CLI)
    assert (result.sources, result.keys, result.compacted) == (2, 1, False)
    assert await world.control_store.get_organization(org) is None
    assert await world.control_store.list_principals(org) == []
    assert await world.store.count_chunks(org) == 0
    with pytest.raises(AuthenticationError):
        await world.services.access.authenticate(key)
    with pytest.raises(NotFoundError):
        await world.services.orgs.preview("acme", None, CLI)
    assert await world.store.count_sources(keep) == 1
    receipts = await world.services.audit.recent("home", 10)
    drop = next(r for r in receipts if r.action == "admin.org.drop")
    assert org in drop.ids and drop.counts["sources"] == 2
    assert "admin.org.drop_preview" in [r.action for r in receipts]


async def test_a_token_from_before_a_change_is_refused() -> None:
    world = World()
    org, _ = await _acme(world)
    preview = await world.services.orgs.preview(org, None, CLI)
    with pytest.raises(ConflictError) as wrong:
        await world.services.orgs.drop(org, "not-the-token", None, CLI)
    assert wrong.value.reason is ReasonCode.PREVIEW_STALE
    await world.user(org, "late-joiner")
    with pytest.raises(ConflictError) as stale:
        await world.services.orgs.drop(org, preview.token, None, CLI)
    assert stale.value.reason is ReasonCode.PREVIEW_STALE
    assert await world.control_store.get_organization(org) is not None
    fresh = await world.services.orgs.preview(org, None, CLI)
    assert fresh.principals == 3
    await world.services.orgs.drop(org, fresh.token, None, CLI)


async def test_only_an_owner_of_it_or_the_operator_may_and_never_the_home_org() -> None:
    world = World()
    await world.services.open(CLI)  # the home organisation
    org, _ = await _acme(world)
    ana = await world.control_store.find_principal(org, "ana")
    admin = await world.user(org, "adele", OrgRole.ADMIN)
    other = await world.user(await world.org("other"), "olga", OrgRole.OWNER)
    for who in (ana, admin, other):
        with pytest.raises(PolicyDeniedError):
            await world.services.orgs.preview(org, who, Surface.API)
    boss = await world.control_store.find_principal(org, "boss")
    preview = await world.services.orgs.preview(org, boss, Surface.API)
    await world.services.orgs.drop(org, preview.token, boss, Surface.API)
    with pytest.raises(ConflictError) as home:
        await world.services.orgs.preview("home", None, CLI)
    assert home.value.reason is ReasonCode.HOME_ORGANIZATION
