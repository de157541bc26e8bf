"""The corrections use case over the reference adapters: preview, apply, and recall after."""

import logging

import pytest

from application.corrections.commands import CorrectionRequest, Span
from application.trust.records import PrincipalRecord
from domain.errors import ConflictError, InvalidInputError, NotFoundError, PolicyDeniedError
from domain.lifecycle import CorrectionAction, Mark
from domain.policy import SpaceRole
from domain.reasons import ReasonCode
from domain.scopes import LifecycleState, MemoryScope
from tests.support.world import World

A = CorrectionAction


async def _setup() -> tuple[World, PrincipalRecord, PrincipalRecord, str]:
    world = World()
    org = await world.org("acme")
    ana = await world.user(org, "ana")
    bob = await world.user(org, "bob")
    return world, ana, bob, org


async def _correct(
    world: World, who: PrincipalRecord, source_id: str, request: CorrectionRequest
) -> object:
    # one request, one context (and one audit receipt id) each, as on every surface
    preview = await world.services.corrections.preview(await world.ctx(who), source_id, request)
    return await world.services.corrections.apply(
        await world.ctx(who), source_id, request, preview.preview_token
    )


async def test_preview_says_what_would_change_and_changes_nothing() -> None:
    world, ana, _, _ = await _setup()
    sid = (await world.remember(ana, "the vault code is 4242")).source_id
    ctx = await world.ctx(ana)
    preview = await world.services.corrections.preview(ctx, sid, CorrectionRequest(action=A.HIDE))
    assert preview.state is LifecycleState.ACTIVE
    assert preview.resulting_state is LifecycleState.HIDDEN
    assert preview.reversible and preview.audit_action == "correct:hide"
    assert preview.impact.leaving == preview.impact.leaving_for_owner == 1
    assert preview.affected_source_ids == [sid] and len(preview.affected_chunk_ids) == 1
    assert [h.source_id for h in (await world.search(ana, "vault code")).results] == [sid]


async def test_apply_needs_a_valid_token_for_the_current_version() -> None:
    world, ana, bob, _ = await _setup()
    sid = (await world.remember(ana, "the vault code is 4242")).source_id
    ctx = await world.ctx(ana)
    service = world.services.corrections
    hide = CorrectionRequest(action=A.HIDE)
    with pytest.raises(InvalidInputError) as missing:
        await service.apply(ctx, sid, hide, None)
    assert missing.value.reason is ReasonCode.PREVIEW_REQUIRED
    stale_mark = await service.preview(ctx, sid, CorrectionRequest(action=A.MARK_STALE))
    with pytest.raises(InvalidInputError) as foreign:  # a token for another request
        await service.apply(ctx, sid, hide, stale_mark.preview_token)
    assert foreign.value.reason is ReasonCode.PREVIEW_INVALID
    preview = await service.preview(ctx, sid, hide)
    await service.apply(ctx, sid, CorrectionRequest(action=A.MARK_STALE), stale_mark.preview_token)
    with pytest.raises(ConflictError) as changed:
        await service.apply(ctx, sid, hide, preview.preview_token)
    assert changed.value.reason is ReasonCode.SOURCE_CHANGED
    bob_ctx = await world.ctx(bob)
    with pytest.raises(PolicyDeniedError):
        await service.preview(bob_ctx, sid, hide)


async def test_a_hidden_source_leaves_search_at_once_and_restore_brings_it_back() -> None:
    world, ana, _, _ = await _setup()
    sid = (await world.remember(ana, "the vault code is 4242")).source_id
    await _correct(world, ana, sid, CorrectionRequest(action=A.HIDE, reason="pasted by mistake"))
    assert (await world.search(ana, "vault code")).results == []
    with pytest.raises(ConflictError):  # hiding twice is no transition
        await world.services.corrections.preview(
            await world.ctx(ana), sid, CorrectionRequest(action=A.HIDE)
        )
    await _correct(world, ana, sid, CorrectionRequest(action=A.RESTORE))
    assert [h.source_id for h in (await world.search(ana, "vault code")).results] == [sid]
    source = await world.store.get_source(ana.org_id, sid)
    assert source is not None and source.version == 3
    assert [c.action for c in source.corrections] == [A.HIDE, A.RESTORE]
    assert source.corrections[0].reason == "pasted by mistake"


async def test_supersede_ranks_the_replacement_first_and_links_both() -> None:
    world, ana, _, org = await _setup()
    old = (await world.remember(ana, "Decision: billing uses PostgreSQL")).source_id
    new = (await world.remember(ana, "Decision update: billing moves to SurrealDB")).source_id
    request = CorrectionRequest(action=A.SUPERSEDE, replacement_id=new, reason="moved")
    await _correct(world, ana, old, request)
    hits = (await world.search(ana, "which database does billing use PostgreSQL")).results
    assert [h.source_id for h in hits] == [new, old]
    assert hits[1].superseded_by == new and hits[1].lifecycle is LifecycleState.SUPERSEDED
    assert await world.store.linked_sources(org, new) == [old]
    with pytest.raises(NotFoundError):
        await world.services.corrections.preview(
            await world.ctx(ana), new, CorrectionRequest(action=A.SUPERSEDE, replacement_id="x")
        )


async def test_superseded_memory_shows_only_when_its_replacement_is_visible() -> None:
    world, ana, bob, org = await _setup()
    team = await world.space(org, MemoryScope.PROJECT, "billing")
    await world.member(team, ana, SpaceRole.WRITER)
    await world.member(team, bob, SpaceRole.READER)
    old = await world.remember(ana, "billing uses PostgreSQL", MemoryScope.PROJECT, "billing")
    new = await world.remember(ana, "billing moves to SurrealDB")  # ana's private memory
    request = CorrectionRequest(action=A.SUPERSEDE, replacement_id=new.source_id)
    await _correct(world, ana, old.source_id, request)
    assert (await world.search(bob, "billing PostgreSQL")).results == []
    assert old.source_id in {h.source_id for h in (await world.search(ana, "billing")).results}


async def test_stale_is_flagged_and_ranked_below_fresh() -> None:
    world, ana, _, _ = await _setup()
    stale = (await world.remember(ana, "standup is at nine standup")).source_id
    fresh = (await world.remember(ana, "standup moved to ten")).source_id
    await _correct(world, ana, stale, CorrectionRequest(action=A.MARK_STALE))
    hits = (await world.search(ana, "standup standup nine")).results
    assert [h.source_id for h in hits] == [fresh, stale]
    assert hits[1].stale and not hits[0].stale


async def test_sensitive_memory_is_recalled_by_its_owner_only() -> None:
    world, ana, bob, org = await _setup()
    team = await world.space(org, MemoryScope.PROJECT, "ops")
    await world.member(team, ana, SpaceRole.WRITER)
    await world.member(team, bob, SpaceRole.READER)
    sid = (await world.remember(ana, "ops pager pin 9911", MemoryScope.PROJECT, "ops")).source_id
    await _correct(world, ana, sid, CorrectionRequest(action=A.MARK_SENSITIVE))
    assert [h.source_id for h in (await world.search(ana, "pager pin")).results] == [sid]
    assert (await world.search(bob, "pager pin")).results == []
    with pytest.raises(PolicyDeniedError):  # a reader may not correct
        await world.services.corrections.preview(
            await world.ctx(bob), sid, CorrectionRequest(action=A.RESTORE)
        )


async def test_duplicates_collapse_under_their_canonical_source() -> None:
    world, ana, _, _ = await _setup()
    first = (await world.remember(ana, "the wifi password is in the drawer")).source_id
    copy = (await world.remember(ana, "the wifi password is in the drawer!")).source_id
    await _correct(world, ana, copy, CorrectionRequest(action=A.MARK_DUPLICATE, canonical_id=first))
    hits = (await world.search(ana, "wifi password drawer")).results
    assert [h.source_id for h in hits] == [first]


async def test_redact_and_delete_remove_text_everywhere(
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # another test in the same process may have quietened or disabled the audit logger
    audit_log = logging.getLogger("tessera.audit")
    monkeypatch.setattr(audit_log, "disabled", False)
    monkeypatch.setattr(audit_log, "propagate", True)
    caplog.set_level(logging.INFO, logger="tessera.audit")
    world, ana, _, org = await _setup()
    red = (await world.remember(ana, "my password is hunter2, keep it safe")).source_id
    gone = (await world.remember(ana, "delete me: hunter3 secret note")).source_id
    spans = CorrectionRequest(action=A.REDACT, spans=[Span(15, 22)], reason="password pasted")
    await _correct(world, ana, red, spans)
    await _correct(world, ana, gone, CorrectionRequest(action=A.DELETE, reason="asked to"))
    for query in ("hunter2 password", "hunter3 secret"):
        assert (await world.search(ana, query)).results == []
    redacted = await world.store.get_source(org, red)
    assert redacted is not None and "hunter2" not in redacted.content
    assert redacted.content == "my password is [redacted], keep it safe"
    tomb = await world.store.get_source(org, gone)
    assert tomb is not None and tomb.content == "" and tomb.lifecycle is LifecycleState.DELETED
    assert tomb.corrections[-1].reason == "asked to"
    assert await world.store.chunks_of_source(org, gone) == []
    with pytest.raises(ConflictError):  # deleted is final
        await world.services.corrections.preview(
            await world.ctx(ana), gone, CorrectionRequest(action=A.RESTORE)
        )
    receipts = await world.services.audit.recent(org, 100)
    assert "hunter" not in repr(receipts)
    corrections_logged = [r for r in caplog.records if "correct" in r.getMessage()]
    assert corrections_logged and "hunter" not in caplog.text  # no text in any log line
    assert {"correct:redact", "preview_correct:delete"} <= {r.action for r in receipts}


async def test_a_summary_stands_in_for_the_redacted_span_and_the_rest_stays() -> None:
    world, ana, _, org = await _setup()
    text = "Guest network for visitors hunter2-kestrel-77, ask Ola at the front desk"
    sid = (await world.remember(ana, text)).source_id
    start = text.index("hunter2")
    span = Span(start, start + len("hunter2-kestrel-77"))
    request = CorrectionRequest(action=A.REDACT, spans=[span], summary="a wifi password")
    preview = await world.services.corrections.preview(await world.ctx(ana), sid, request)
    assert preview.impact.chars_removed == len("hunter2-kestrel-77")
    assert preview.impact.chars_kept == len(text) - len("hunter2-kestrel-77")
    assert "hunter2" not in repr(preview) and "Ola" not in repr(preview)
    await _correct(world, ana, sid, request)
    kept = "Guest network for visitors [redacted: a wifi password], ask Ola at the front desk"
    redacted = await world.store.get_source(org, sid)
    assert redacted is not None and redacted.content == kept
    assert await world.store.chunks_of_source(org, sid) == []
    shown = await world.services.inspector.inspect_source(await world.ctx(ana), sid)
    assert shown.content == kept and shown.exposure == "summary"
    for query in ("hunter2 kestrel", "guest network front desk", "wifi password"):
        assert sid not in {h.source_id for h in (await world.search(ana, query)).results}


async def test_a_whole_text_redaction_leaves_the_summary_and_counts_it_in_the_preview() -> None:
    world, ana, _, org = await _setup()
    sid = (await world.remember(ana, "the vault code is 4242")).source_id
    request = CorrectionRequest(action=A.REDACT, summary="a vault code")
    preview = await world.services.corrections.preview(await world.ctx(ana), sid, request)
    assert (preview.impact.chars_removed, preview.impact.chars_kept) == (22, 0)
    await _correct(world, ana, sid, request)
    redacted = await world.store.get_source(org, sid)
    assert redacted is not None and redacted.content == "a vault code"


async def test_requests_are_checked() -> None:
    for bad in (
        CorrectionRequest(action=A.SUPERSEDE),
        CorrectionRequest(action=A.HIDE, canonical_id="x"),
        CorrectionRequest(action=A.HIDE, summary="x"),
        CorrectionRequest(action=A.REDACT, spans=[Span(3, 2)]),
        CorrectionRequest(action=A.REDACT, spans=[Span(0, 5), Span(4, 6)]),
    ):
        with pytest.raises(InvalidInputError):
            bad.validate()
    assert Mark.WRONG.value == "wrong"


async def test_inspect_shows_lifecycle_links_history_and_actions_per_caller() -> None:
    world, ana, bob, org = await _setup()
    team = await world.space(org, MemoryScope.PROJECT, "ops")
    await world.member(team, ana, SpaceRole.WRITER)
    await world.member(team, bob, SpaceRole.READER)
    old = (await world.remember(ana, "deploys on friday", MemoryScope.PROJECT, "ops")).source_id
    new = (await world.remember(ana, "no deploys on friday", MemoryScope.PROJECT, "ops")).source_id
    why = CorrectionRequest(action=A.SUPERSEDE, replacement_id=new, reason="policy changed")
    await _correct(world, ana, old, why)
    inspect = world.services.inspector.inspect_source
    as_ana = await inspect(await world.ctx(ana), old)
    assert as_ana.superseded_by == new and as_ana.content == "deploys on friday"
    assert [c.reason for c in as_ana.corrections] == ["policy changed"]
    assert {a.action for a in as_ana.actions} >= {A.RESTORE, A.HIDE, A.DELETE}
    assert "correct:supersede" in {r.action for r in as_ana.receipts}
    assert as_ana.visibility is not None and as_ana.visibility.space == "project/ops"
    as_bob = await inspect(await world.ctx(bob), old)
    assert as_bob.actions == [] and [c.reason for c in as_bob.corrections] == [None]
    assert as_bob.receipts == []
    assert (await inspect(await world.ctx(bob), new)).linked_from == [old]

    await _correct(world, ana, new, CorrectionRequest(action=A.MARK_WRONG))
    wrong = await inspect(await world.ctx(bob), new)
    assert wrong.content is None and wrong.exposure == "metadata"
    assert (await inspect(await world.ctx(ana), new)).content == "no deploys on friday"

    await _correct(world, ana, old, CorrectionRequest(action=A.HIDE))
    with pytest.raises(NotFoundError):  # others learn nothing of a hidden source
        await inspect(await world.ctx(bob), old)
    await _correct(world, ana, old, CorrectionRequest(action=A.REDACT, summary="a deploy rule"))
    redacted = await inspect(await world.ctx(ana), old)
    assert redacted.content == "a deploy rule" and redacted.exposure == "summary"
    await _correct(world, ana, new, CorrectionRequest(action=A.DELETE, reason="gone"))
    tomb = await inspect(await world.ctx(ana), new)
    assert tomb.content is None and tomb.exposure == "tombstone"
    assert tomb.content_hash and tomb.corrections[-1].action is A.DELETE
    assert "friday" not in repr(tomb)
