"""The access preview counts what recall would admit, not what a state alone allows."""

from typing import Any

import msgspec

from contracts.samples import make_source
from domain.lifecycle import Mark
from domain.policy import OrgRole, SpaceRole
from domain.reasons import ReasonCode
from domain.scopes import LifecycleState, MemoryScope
from tests.support.world import World

S = LifecycleState


async def test_the_preview_judges_marks_owners_and_replacements_as_recall_does() -> None:
    world = World()
    org = await world.org("acme")
    boss = await world.user(org, "boss", OrgRole.OWNER)
    ana, bo = await world.user(org, "ana"), await world.user(org, "bo")
    space = await world.space(org, MemoryScope.PROJECT, "apollo")
    await world.member(space, ana)
    await world.member(space, bo, SpaceRole.READER)
    live = await world.remember(ana, "apollo budget is tight", MemoryScope.PROJECT, "apollo")

    async def put(source_id: str, state: LifecycleState = S.ACTIVE, **changes: Any) -> None:
        source = make_source(
            source_id, org, scope=MemoryScope.PROJECT, scope_key="apollo", lifecycle=state
        )
        await world.store.save_memory(msgspec.structs.replace(source, **changes), [])

    await put("mine", marks=frozenset({Mark.SENSITIVE}), created_by=ana.principal_id)
    await put("wrong", marks=frozenset({Mark.WRONG}))
    await put("stale", marks=frozenset({Mark.STALE}))
    await put("old", S.SUPERSEDED, superseded_by=live.source_id)
    await put("orphan", S.SUPERSEDED, superseded_by="hidden")
    await put("hidden", S.HIDDEN)
    await put("redacted", S.REDACTED)
    await put("deleted", S.DELETED)
    await put("dup", S.DUPLICATE, duplicate_of=live.source_id)

    by_boss = await world.ctx(boss)
    for_ana = await world.services.inspector.access_preview(by_boss, space.space_id, "ana")
    for_bo = await world.services.inspector.access_preview(by_boss, space.space_id, "bo")
    common = {live.source_id, "stale", "old", "dup"}
    assert set(for_ana.recallable_source_ids) == common | {"mine"}
    assert set(for_bo.recallable_source_ids) == common  # another's sensitive note is not
    assert for_ana.recallable_source_ids == sorted(for_ana.recallable_source_ids)
    withheld = {
        str(ReasonCode.SOURCE_MARKED_WRONG): 1,
        str(ReasonCode.REPLACEMENT_NOT_VISIBLE): 1,
        str(ReasonCode.HIDDEN_SOURCE): 1,
        str(ReasonCode.REDACTED_SOURCE): 1,
        str(ReasonCode.SOURCE_DELETED): 1,
    }
    assert for_ana.deny_reasons == withheld
    assert for_bo.deny_reasons == {**withheld, str(ReasonCode.SENSITIVE_SOURCE): 1}
    assert for_ana.total_sources == for_bo.total_sources == 10
    assert for_ana.hidden_count == 6  # not active: two superseded, hidden, redacted, deleted, dup

