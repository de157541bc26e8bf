"""Packs and search count the relevant redacted sources the caller is not shown."""

from datetime import UTC, datetime

import msgspec

from application.corrections.commands import CorrectionRequest, Span
from application.memory.commands import ContextRequest, SearchRequest
from application.trust.records import PrincipalRecord
from domain.lifecycle import CorrectionAction, Mark
from domain.policy import SpaceRole
from domain.scopes import MemoryScope, SourceType
from domain.search_filters import SearchFilters
from tests.support.world import World

A = CorrectionAction


async def _correct(
    world: World, who: PrincipalRecord, source_id: str, request: CorrectionRequest
) -> None:
    service = world.services.corrections
    preview = await service.preview(await world.ctx(who), source_id, request)
    await service.apply(await world.ctx(who), source_id, request, preview.preview_token)


def _json(value: object) -> str:
    return msgspec.json.encode(value).decode()


async def test_a_relevant_redaction_is_counted_and_never_shown() -> None:
    world = World()
    org = await world.org("acme")
    ana = await world.user(org, "ana")
    secret = "the billing database password is kestrel-77"
    sid = (await world.remember(ana, secret)).source_id
    summary = "billing database credentials were pasted here"
    await _correct(
        world, ana, sid, CorrectionRequest(action=A.REDACT, summary=summary, reason="a password")
    )
    pack = await world.pack(ana, "what is the billing database password?")
    assert pack.withheld_redacted == 1 and pack.items == []
    found = await world.search(ana, "billing databases")  # "databases" folds to "database"
    assert found.withheld_redacted == 1 and found.results == []
    for shown in (_json(pack), _json(found)):
        assert "kestrel" not in shown and summary not in shown and sid not in shown
    irrelevant = await world.pack(ana, "when is the dentist appointment?")
    assert irrelevant.withheld_redacted == 0
    only_function_words = await world.pack(ana, "what is it?")
    assert only_function_words.withheld_redacted == 0


async def test_a_span_redaction_is_matched_by_what_it_kept_not_by_the_secret() -> None:
    world = World()
    org = await world.org("acme")
    ana = await world.user(org, "ana")
    text = "prod deploy key is zebra-omega-99 for the ops cluster"
    sid = (await world.remember(ana, text)).source_id
    start = text.index("zebra")
    spans = [Span(start, start + len("zebra-omega-99"))]
    await _correct(world, ana, sid, CorrectionRequest(action=A.REDACT, spans=spans))
    assert (await world.pack(ana, "deploy key for prod")).withheld_redacted == 1
    assert (await world.pack(ana, "zebra omega")).withheld_redacted == 0  # the secret is gone
    assert (await world.pack(ana, "redacted")).withheld_redacted == 0  # the mark is no word


async def test_no_count_crosses_into_a_space_the_caller_cannot_read() -> None:
    world = World()
    org = await world.org("acme")
    ana, bob, eve = [await world.user(org, n) for n in ("ana", "bob", "eve")]
    ops = await world.space(org, MemoryScope.PROJECT, "ops")
    await world.member(ops, ana, SpaceRole.WRITER)
    await world.member(ops, bob, SpaceRole.READER)
    shared = (await world.remember(ana, "ops pager rota secret", MemoryScope.PROJECT, "ops"))
    private = (await world.remember(ana, "private pager rota notes")).source_id
    for sid in (shared.source_id, private):
        await _correct(world, ana, sid, CorrectionRequest(action=A.REDACT, summary="pager rota"))
    assert (await world.pack(ana, "pager rota")).withheld_redacted == 2
    assert (await world.pack(bob, "pager rota")).withheld_redacted == 1  # not ana's private one
    assert (await world.pack(eve, "pager rota")).withheld_redacted == 0
    assert (await world.search(eve, "pager rota")).withheld_redacted == 0


async def test_another_owners_sensitive_redaction_is_not_counted() -> None:
    world = World()
    org = await world.org("acme")
    ana, bob = [await world.user(org, n) for n in ("ana", "bob")]
    ops = await world.space(org, MemoryScope.PROJECT, "ops")
    await world.member(ops, ana, SpaceRole.WRITER)
    await world.member(ops, bob, SpaceRole.READER)
    sid = (await world.remember(ana, "ops salary notes", MemoryScope.PROJECT, "ops")).source_id
    await _correct(world, ana, sid, CorrectionRequest(action=A.MARK_SENSITIVE))
    await _correct(world, ana, sid, CorrectionRequest(action=A.REDACT, summary="ops salary"))
    source = await world.store.get_source(org, sid)
    assert source is not None and Mark.SENSITIVE in source.marks
    assert (await world.pack(ana, "ops salary")).withheld_redacted == 1
    assert (await world.pack(bob, "ops salary")).withheld_redacted == 0


async def test_a_filtered_search_or_pack_counts_only_the_redactions_its_filter_admits() -> None:
    world = World()
    org = await world.org("acme")
    ana = await world.user(org, "ana")
    sid = (await world.remember(ana, "the billing database password is kestrel-77")).source_id
    await _correct(world, ana, sid, CorrectionRequest(action=A.REDACT, summary="billing secret"))
    ctx = await world.ctx(ana)
    query = "billing database password"
    cases = [
        (None, 1),
        (SearchFilters(scope=MemoryScope.PRIVATE), 1),
        (SearchFilters(scope=MemoryScope.TEAM), 0),
        (SearchFilters(source_types=frozenset({SourceType.EMAIL})), 0),
        (SearchFilters(import_id="imp-1"), 0),
        (SearchFilters(occurred_to=datetime(2001, 1, 1, tzinfo=UTC)), 0),
        # the note has no occurred_at: an unknown time is inside no range, as in search
        (SearchFilters(occurred_from=datetime(2001, 1, 1, tzinfo=UTC)), 0),
    ]
    for filters, expected in cases:
        search = SearchRequest(org_id=org, query=query, limit=10, filters=filters)
        found = await world.services.memory.search(search, ctx)
        assert found.withheld_redacted == expected, filters
        pack_request = ContextRequest(org_id=org, query=query, token_budget=500, filters=filters)
        pack = await world.services.memory.context_pack(pack_request, ctx)
        assert pack.withheld_redacted == expected, filters
