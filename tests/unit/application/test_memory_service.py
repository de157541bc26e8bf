"""The use cases against the reference adapters (fakes, not mocks)."""

from datetime import UTC, datetime

import pytest

from adapters.inprocess.index import InProcessIndex
from application.enrichment.lane import EmbeddingLane, LaneSettings
from application.memory.commands import ContextRequest, RememberRequest, SearchRequest
from application.memory.service import MemoryService
from application.ports.writes import EmbeddingState, WaitFor
from application.retrieval.recall import Recall
from domain.errors import InvalidInputError, PolicyDeniedError
from domain.policy import OrgRole, SpaceRole
from domain.reasons import ReasonCode
from domain.scopes import MemoryScope
from tests.unit.application.conftest import Parts

ORG = "acme"


def _remember(content: str, **kw: object) -> RememberRequest:
    return RememberRequest(org_id=ORG, content=content, **kw)  # type: ignore[arg-type]


async def test_remember_keeps_the_source_verbatim_and_chunks_it(parts: Parts) -> None:
    content = "  The launch moved to Friday.\n\nKeep  spacing!  "
    result = await parts.service.remember(_remember(content), parts.ctx)
    source = await parts.store.get_source(ORG, result.source_id)
    assert source is not None and source.content == content
    assert source.created_at == parts.clock.now()
    chunks = await parts.store.get_chunks(ORG, result.chunk_ids)
    assert [c.source_id for c in chunks.values()] == [result.source_id]


async def test_long_content_is_chunked_and_every_chunk_points_to_the_source(parts: Parts) -> None:
    content = " ".join(f"Sentence number {i} talks about topic {i % 7}." for i in range(200))
    result = await parts.service.remember(_remember(content), parts.ctx)
    assert len(result.chunk_ids) > 3
    chunks = await parts.store.get_chunks(ORG, result.chunk_ids)
    assert all(c.source_id == result.source_id for c in chunks.values())
    assert all(content[c.start : c.end] == c.text for c in chunks.values())


async def test_same_text_is_never_embedded_twice(parts: Parts) -> None:
    await parts.service.remember(_remember("Alice prefers green tea."), parts.ctx)
    await parts.service.lane.drain()  # the lane embedded it and cached the vector
    before = parts.embedder.texts_embedded
    again = await parts.service.remember(_remember("Alice prefers green tea."), parts.ctx)
    assert parts.embedder.texts_embedded == before
    assert again.cached_embeddings == 1


async def test_search_fuses_lexical_and_vector_and_reports_ranks(parts: Parts) -> None:
    await parts.service.remember(
        _remember("We booked the Lisbon flight for the conference."), parts.ctx
    )
    await parts.service.remember(_remember("My dentist appointment is on Tuesday."), parts.ctx)
    await parts.service.remember(_remember("The budget review meeting was moved."), parts.ctx)
    result = await parts.service.search(
        SearchRequest(org_id=ORG, query="Lisbon flight", limit=2), parts.ctx
    )
    assert len(result.results) == 2
    top = result.results[0]
    assert "Lisbon" in top.text
    assert top.signals.lexical_rank == 1 and top.signals.vector_rank == 1
    assert result.results[0].score > result.results[1].score


async def test_search_only_returns_candidates_the_filter_admits(parts: Parts) -> None:
    apollo = await parts.world.space(ORG, MemoryScope.PROJECT, "apollo")
    await parts.world.member(apollo, parts.owner)
    # a context is a snapshot: the owner's new membership shows in a fresh one
    await parts.world.remember(
        parts.owner, "project apollo launch checklist", MemoryScope.PROJECT, "apollo"
    )
    await parts.service.remember(_remember("private launch diary"), parts.ctx)
    bob = await parts.world.user(ORG, "bob")
    await parts.world.member(apollo, bob, SpaceRole.READER)
    result = await parts.world.search(bob, "launch", limit=10)
    assert [h.scope_key for h in result.results] == ["apollo"]
    owner_sees = await parts.world.search(parts.owner, "launch", limit=10)
    assert len(owner_sees.results) == 2


async def test_organisations_are_isolated(parts: Parts) -> None:
    await parts.service.remember(_remember("acme secret roadmap"), parts.ctx)
    globex = await parts.world.org("globex")
    stranger = await parts.world.user(globex, "stranger", OrgRole.OWNER)
    other = await parts.world.search(stranger, "secret roadmap")
    assert other.results == []
    with pytest.raises(PolicyDeniedError) as caught:
        await parts.service.search(
            SearchRequest(org_id=ORG, query="roadmap"), await parts.world.ctx(stranger)
        )
    assert caught.value.reason is ReasonCode.PRINCIPAL_MISMATCH


async def test_context_pack_respects_the_budget_and_explains_itself(parts: Parts) -> None:
    for i in range(30):
        await parts.service.remember(
            _remember(f"Note {i}: the garden needs watering on day {i}."), parts.ctx
        )
    pack = await parts.service.context_pack(
        ContextRequest(org_id=ORG, query="garden watering", token_budget=60), parts.ctx
    )
    assert 0 < pack.token_count <= 60
    assert pack.token_count == sum(i.token_count for i in pack.items)
    assert pack.encoding == "cl100k_base"
    assert pack.omitted > 0
    assert all("rank" in item.reason for item in pack.items)


async def test_a_pack_of_short_notes_fills_its_budget_past_forty_candidates(
    parts: Parts,
) -> None:
    # short chat turns: forty of them left part of the budget unused
    for i in range(90):
        await parts.service.remember(_remember(f"Garden note {i}: watered."), parts.ctx)
    pack = await parts.service.context_pack(
        ContextRequest(org_id=ORG, query="garden", token_budget=4000), parts.ctx
    )
    assert 40 < len(pack.items) <= 80
    assert pack.token_count <= 4000


async def test_a_pack_reads_no_more_candidates_than_its_budget_can_take(
    parts: Parts, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(90):
        words = " ".join(f"garden{i} bed{j}" for j in range(40))
        await parts.service.remember(_remember(f"Long garden note {i}: {words}."), parts.ctx)
    asked: list[int] = []
    read = parts.store.chunks_with_sources

    async def counting(org_id: str, chunk_ids: list[str]) -> object:
        asked.append(len(chunk_ids))
        return await read(org_id, chunk_ids)

    monkeypatch.setattr(parts.store, "chunks_with_sources", counting)
    pack = await parts.service.context_pack(
        ContextRequest(org_id=ORG, query="garden", token_budget=600), parts.ctx
    )
    assert pack.omitted > 0  # the first candidates filled the budget
    assert sum(asked) <= 40  # so the rest were never read


async def test_index_is_rebuilt_from_the_store_on_first_use(parts: Parts) -> None:
    first = await parts.service.remember(
        _remember("The cellar key is under the blue pot."), parts.ctx
    )
    index = InProcessIndex()
    restarted = MemoryService(
        store=parts.store,
        index=index,
        embedder=parts.embedder,
        tokens=parts.service._tokens,
        clock=parts.clock,
        ids=parts.service._ids,
        audit=parts.service._audit,
        recall=Recall(store=parts.store, index=index, embedder=parts.embedder),
        lane=EmbeddingLane(store=parts.store, index=index, embedder=parts.embedder),
    )
    result = await restarted.search(SearchRequest(org_id=ORG, query="cellar key"), parts.ctx)
    assert result.results[0].source_id == first.source_id


@pytest.mark.parametrize(
    ("request_", "reason"),
    [
        (_remember("   "), ReasonCode.EMPTY_CONTENT),
        (_remember("x" * 200_001), ReasonCode.CONTENT_TOO_LARGE),
        (_remember("x", scope=MemoryScope.PROJECT), ReasonCode.MISSING_SCOPE_KEY),
        (_remember("x", scope_key="  "), ReasonCode.INVALID_SCOPE_KEY),
        (_remember("x", occurred_at=datetime(2026, 1, 1)), ReasonCode.INVALID_REQUEST),
        (_remember("x", metadata={str(i): i for i in range(65)}), ReasonCode.INVALID_REQUEST),
        (SearchRequest(org_id=ORG, query=""), ReasonCode.EMPTY_QUERY),
        (SearchRequest(org_id=ORG, query="q", limit=0), ReasonCode.LIMIT_OUT_OF_RANGE),
        (SearchRequest(org_id=ORG, query="q", limit=101), ReasonCode.LIMIT_OUT_OF_RANGE),
        (SearchRequest(org_id=ORG, query="q" * 4001), ReasonCode.CONTENT_TOO_LARGE),
        (ContextRequest(org_id=ORG, query="q", token_budget=0), ReasonCode.BUDGET_OUT_OF_RANGE),
        (
            ContextRequest(org_id=ORG, query="q", token_budget=32_001),
            ReasonCode.BUDGET_OUT_OF_RANGE,
        ),
    ],
)
async def test_bad_requests_are_refused_with_a_reason_before_any_write(
    parts: Parts, request_: object, reason: ReasonCode
) -> None:
    service: MemoryService = parts.service
    if isinstance(request_, RememberRequest):
        call = service.remember(request_, parts.ctx)
    elif isinstance(request_, SearchRequest):
        call = service.search(request_, parts.ctx)  # type: ignore[assignment]
    else:
        assert isinstance(request_, ContextRequest)
        call = service.context_pack(request_, parts.ctx)  # type: ignore[assignment]
    with pytest.raises(InvalidInputError) as caught:
        await call
    assert caught.value.reason is reason
    assert await parts.store.count_chunks(ORG) == 0


async def test_an_embedder_failure_keeps_the_write_retries_then_dead_letters(
    parts: Parts,
) -> None:
    class Broken:
        space = parts.embedder.space
        calls = 0

        async def embed(self, texts: object) -> list[list[float]]:
            Broken.calls += 1
            raise RuntimeError("model exploded on: secret text")

    service = MemoryService(
        store=parts.store,
        index=parts.index,
        embedder=Broken(),
        tokens=parts.service._tokens,
        clock=parts.clock,
        ids=parts.service._ids,
        audit=parts.service._audit,
        recall=Recall(store=parts.store, index=parts.index, embedder=Broken()),
        lane=EmbeddingLane(
            store=parts.store,
            index=parts.index,
            embedder=Broken(),
            settings=LaneSettings(max_attempts=3, backoff=0.001),
        ),
    )
    from domain.errors import UpstreamError

    # a caller that waits for the vectors hears of the failure, without the text
    with pytest.raises(UpstreamError) as caught:
        await service.remember(_remember("secret text", wait=WaitFor.INDEXED), parts.ctx)
    assert caught.value.reason is ReasonCode.EMBEDDER_FAILED
    assert "secret" not in caught.value.detail
    # the write itself is never lost: stored, found by its words, retried, then dead-lettered
    result = await service.remember(_remember("another secret"), parts.ctx)
    assert result.embedding is EmbeddingState.PENDING
    assert await parts.store.count_chunks(ORG) == 2
    # (searched through a service whose model works: a query needs its own vector)
    found = await parts.service.search(
        SearchRequest(org_id=ORG, query="another secret"), parts.ctx
    )
    assert found.results[0].chunk_id == result.chunk_ids[0]
    assert found.results[0].signals.vector_rank is None
    await service.lane.drain()
    counts = await parts.store.embedding_counts(ORG)
    assert (counts.pending, counts.failed) == (0, 2)
    assert Broken.calls >= 3
    await service.lane.stop()


def test_occurred_at_with_timezone_is_accepted() -> None:
    _remember("x", occurred_at=datetime(2026, 1, 1, tzinfo=UTC)).validate()
