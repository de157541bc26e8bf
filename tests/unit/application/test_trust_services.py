"""The trust layer's use cases over the reference adapters: keys, grants, admin, audit."""

from datetime import timedelta

import pytest

from application.trust.keys import compose_key, hash_secret, parse_key
from contracts.samples import make_source
from domain.errors import (
    AuthenticationError,
    InvalidInputError,
    NotFoundError,
    PolicyDeniedError,
)
from domain.policy import OrgRole, SpaceRole, Surface
from domain.reasons import ReasonCode
from domain.scopes import LifecycleState, MemoryScope, ScopeRef
from tests.support.world import World

CLI = Surface.CLI


def test_keys_parse_and_only_their_hash_matches() -> None:
    key = compose_key("abc123", "S" * 43)
    parsed = parse_key(key)
    assert parsed is not None and parsed.key_id == "abc123"
    assert parsed.matches(hash_secret("S" * 43))
    assert not parsed.matches(hash_secret("T" * 43))
    for bad in ("", "tsk_", "tsk_ABC_" + "S" * 43, "xyz_abc_" + "S" * 43, "tsk_abc_short"):
        assert parse_key(bad) is None


async def test_bootstrap_happens_once_and_its_key_authenticates() -> None:
    world = World()
    issued = await world.services.open(CLI)
    assert issued is not None and issued.org_id == "home"
    assert await world.services.open(CLI) is None
    caller = await world.services.access.authenticate(issued.key)
    assert caller.principal.org_role is OrgRole.OWNER and caller.org_id == "home"
    stored = await world.control_store.get_key(issued.key_id)
    assert stored is not None and issued.key.split("_", 2)[2] not in str(stored)


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (None, ReasonCode.MISSING_API_KEY),
        ("", ReasonCode.MISSING_API_KEY),
        ("nope", ReasonCode.INVALID_API_KEY),
    ],
)
async def test_unusable_keys_are_refused(raw: str | None, reason: ReasonCode) -> None:
    with pytest.raises(AuthenticationError) as caught:
        await World().services.access.authenticate(raw)
    assert caught.value.reason is reason


async def test_revocation_takes_effect_on_the_next_request() -> None:
    world = World()
    org = await world.org("acme")
    ana = await world.user(org, "ana")
    key = await world.key(ana)
    await world.services.access.authenticate(key)
    key_id = key.split("_")[1]
    await world.services.control.revoke_key(key_id, None, CLI)
    first = (await world.control_store.get_key(key_id)).revoked_at  # type: ignore[union-attr]
    world.clock.set(world.clock.now() + timedelta(minutes=1))
    await world.services.control.revoke_key(key_id, None, CLI)
    assert (await world.control_store.get_key(key_id)).revoked_at == first  # type: ignore[union-attr]
    with pytest.raises(AuthenticationError) as caught:
        await world.services.access.authenticate(key)
    assert caught.value.reason is ReasonCode.REVOKED_API_KEY


async def test_grants_are_reloaded_after_a_control_change() -> None:
    world = World()
    org = await world.org("acme")
    ana = await world.user(org, "ana")
    space = await world.space(org, MemoryScope.PROJECT, "apollo")
    before = await world.ctx(ana)
    await world.member(space, ana)
    after = await world.ctx(ana)
    assert before.memberships == ()
    assert [m.space for m in after.memberships] == [ScopeRef(MemoryScope.PROJECT, "apollo")]


async def test_only_admins_administer_and_only_their_own_organisation() -> None:
    world = World()
    home = await world.org("home-org")
    acme, globex = await world.org("acme"), await world.org("globex")
    admin = await world.user(acme, "root", OrgRole.ADMIN)
    member = await world.user(acme, "ana")
    agent = await world.agent(acme, "scribe", member)
    control = world.services.control
    await control.create_principal(acme, "bo", admin, CLI)
    for who, org in ((member, acme), (agent, acme), (admin, globex)):
        with pytest.raises(PolicyDeniedError) as caught:
            await control.create_principal(org, "eve", who, CLI)
        assert caught.value.reason is ReasonCode.ADMIN_REQUIRED
    with pytest.raises(PolicyDeniedError):
        await control.create_organization("mine", admin, CLI)
    assert home  # a non-home organisation's owner is no operator
    owner = await world.user(acme, "boss", OrgRole.OWNER)
    with pytest.raises(PolicyDeniedError):
        await control.create_organization("mine", owner, CLI)
    keys = await control.list_keys(acme, admin)
    assert keys == []
    globex_user = await world.user(globex, "gus")
    key_id = (await world.key(globex_user)).split("_")[1]
    with pytest.raises(NotFoundError):  # another organisation's key id means nothing
        await control.revoke_key(key_id, admin, CLI)


async def test_admin_input_is_checked() -> None:
    world = World()
    org = await world.org("acme")
    ana = await world.user(org, "ana")
    agent = await world.agent(org, "scribe", ana, delegation_days=0)
    control = world.services.control
    cases = [
        control.create_principal(org, "  ", None, CLI),
        control.create_principal(org, "x", None, CLI, acting_for=agent.principal_id),
        control.create_principal(org, "x", None, CLI, acting_for="ana", org_role=OrgRole.ADMIN),
        control.delegate(org, ana.principal_id, agent.principal_id, 0, None, CLI),
        world.services.spaces.create_space(org, ScopeRef(MemoryScope.PRIVATE, "x"), "p", None, CLI),
        world.services.spaces.create_space(org, ScopeRef(MemoryScope.TEAM), "t", None, CLI),
        world.services.spaces.create_space(
            org, ScopeRef(MemoryScope.ORGANIZATION, "k"), "o", None, CLI
        ),
    ]
    for call in cases:
        with pytest.raises(InvalidInputError):
            await call
    with pytest.raises(NotFoundError):
        await control.create_principal(org, "x", None, CLI, acting_for="nobody")
    with pytest.raises(NotFoundError):
        await world.services.spaces.set_writes(org, "no-space", True, None, CLI)


async def test_audit_receipts_are_written_in_batches_and_kept_on_failure() -> None:
    world = World()
    org = await world.org("acme")
    ana = await world.user(org, "ana")
    await world.remember(ana, "the vault code is 4471")
    await world.search(ana, "vault code")
    receipts = await world.services.audit.recent(org, 10)
    assert [r.action for r in receipts][:2] == ["search", "remember"]
    assert "4471" not in str(receipts) and "vault" not in str(receipts)

    class Failing:
        async def record(self, receipts: object) -> None:
            raise RuntimeError("disk full")

        async def recent(self, org_id: str, limit: int) -> list[object]:
            return []

    trail = world.services.audit
    trail._log = Failing()  # type: ignore[assignment]
    await world.search(ana, "vault")
    await trail.flush()
    assert len(trail._pending) == 1  # kept for the next flush
    trail._log = world.audit_log
    await trail.flush()
    assert trail._pending == []
    assert (await world.audit_log.recent(org, 1))[0].action == "search"


async def test_inspect_withholds_text_of_hidden_sources_and_denies_strangers() -> None:
    world = World()
    org = await world.org("acme")
    ana, bo = await world.user(org, "ana"), await world.user(org, "bo")
    kept = await world.remember(ana, "Ana's allergy list: peanuts")
    hidden = make_source("h1", org, scope_key=ana.principal_id, lifecycle=LifecycleState.HIDDEN)
    await world.store.save_memory(hidden, [])
    view = await world.services.inspector.inspect_source(await world.ctx(ana), kept.source_id)
    assert view.content == "Ana's allergy list: peanuts" and view.withheld_reason is None
    assert view.visible_because.startswith("private: your own")
    assert [(d.chunk_id, d.start, d.end) for d in view.derived] == [
        (kept.chunk_ids[0], 0, len("Ana's allergy list: peanuts"))
    ]
    assert "peanut" not in repr(view.derived)
    # a hidden source shows its text to its owner only (docs/design.md#lifecycle)
    hidden_view = await world.services.inspector.inspect_source(await world.ctx(ana), "h1")
    assert hidden_view.content == hidden.content and hidden_view.withheld_reason is None
    assert hidden_view.lifecycle is LifecycleState.HIDDEN
    assert {a.action for a in hidden_view.actions} == {"restore", "redact", "delete"}
    assert all(a.preview_required for a in hidden_view.actions)
    with pytest.raises(PolicyDeniedError) as caught:
        await world.services.inspector.inspect_source(await world.ctx(bo), kept.source_id)
    assert caught.value.reason is ReasonCode.PRINCIPAL_MISMATCH
    assert "peanut" not in caught.value.detail
    with pytest.raises(NotFoundError):
        await world.services.inspector.inspect_source(await world.ctx(ana), "missing")


async def test_access_preview_counts_without_text_and_needs_an_admin() -> None:
    world = World()
    org = await world.org("acme")
    owner = await world.user(org, "boss", OrgRole.OWNER)
    ana, bo = await world.user(org, "ana"), await world.user(org, "bo")
    space = await world.space(org, MemoryScope.PROJECT, "apollo")
    await world.member(space, ana)
    await world.member(space, bo, SpaceRole.OWNER)
    one = await world.remember(ana, "apollo budget is tight", MemoryScope.PROJECT, "apollo")
    hidden = make_source(
        "h1", org, scope=MemoryScope.PROJECT, scope_key="apollo", lifecycle=LifecycleState.HIDDEN
    )
    await world.store.save_memory(hidden, [])
    preview = await world.services.inspector.access_preview(
        await world.ctx(owner), space.space_id, "ana"
    )
    assert preview.recallable_source_ids == [one.source_id]
    assert preview.hidden_count == 1 and preview.deny_reasons == {"hidden_source": 1}
    assert preview.total_sources == 2
    by_space_owner = await world.services.inspector.access_preview(
        await world.ctx(bo), space.space_id, "boss"
    )
    assert not by_space_owner.allowed and by_space_owner.reason is ReasonCode.UNVERIFIED_MEMBERSHIP
    with pytest.raises(PolicyDeniedError) as caught:
        await world.services.inspector.access_preview(await world.ctx(ana), space.space_id, "bo")
    assert caught.value.reason is ReasonCode.ADMIN_REQUIRED


async def test_visible_spaces_list_what_the_caller_may_read() -> None:
    world = World()
    org = await world.org("acme")
    ana = await world.user(org, "ana")
    apollo = await world.space(org, MemoryScope.PROJECT, "apollo")
    await world.space(org, MemoryScope.PROJECT, "zeus")
    await world.space(org, MemoryScope.ORGANIZATION)
    await world.member(apollo, ana, SpaceRole.READER)
    views = await world.services.inspector.visible_spaces(await world.ctx(ana))
    seen = {(v.scope, v.scope_key, v.role) for v in views}
    assert seen == {
        (MemoryScope.PRIVATE, ana.principal_id, SpaceRole.OWNER),
        (MemoryScope.PROJECT, "apollo", SpaceRole.READER),
        (MemoryScope.ORGANIZATION, None, None),
    }


async def test_a_revocation_by_another_instance_is_seen_within_the_cache_ttl() -> None:
    from application.trust.access import CACHE_TTL_S, AccessResolver

    world = World()
    org = await world.org("acme")
    key = await world.key(await world.user(org, "ana"))
    ticks = [100.0]
    resolver = AccessResolver(world.control_store, world.clock, monotonic=lambda: ticks[0])
    await resolver.authenticate(key)
    # another process revokes it straight in the shared store
    await world.control_store.revoke_key(key.split("_")[1], world.clock.now())
    ticks[0] += CACHE_TTL_S / 2
    await resolver.authenticate(key)  # still cached here
    ticks[0] += CACHE_TTL_S
    with pytest.raises(AuthenticationError) as caught:
        await resolver.authenticate(key)
    assert caught.value.reason is ReasonCode.REVOKED_API_KEY
