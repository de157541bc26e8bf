"""The embedding lane on the real store: a restart resumes what a stopped process left pending."""

from pathlib import Path

from adapters.surreal.memory_store import SurrealMemoryStore
from application.memory.commands import RememberRequest, SearchRequest
from application.services import Services
from domain.policy import Surface
from tests.e2e.conftest import services_over_fakes


def _services(url: str) -> Services:
    return services_over_fakes(store=SurrealMemoryStore(url))


async def test_a_restart_embeds_the_chunks_a_stopped_process_left_pending(tmp_path: Path) -> None:
    url = f"surrealkv://{tmp_path / 'data'}"
    first = _services(url)
    await first.open(Surface.CLI)
    owner = await first.control.principal("local", "owner")
    ctx = await first.access.context_for(owner, Surface.CLI, "req-1")
    await first.memory.lane.stop()  # as if the process died before the lane ran
    texts = [f"ledger entry {n} about the harbour" for n in range(5)]
    for text in texts:
        result = await first.memory.remember(RememberRequest(org_id="local", content=text), ctx)
        assert result.embedding.value == "pending"
    found = await first.memory.search(SearchRequest(org_id="local", query="ledger"), ctx)
    assert len(found.results) == 5  # searchable by their words while pending
    assert all(h.signals.vector_rank is None for h in found.results)
    await first.close()

    second = _services(url)  # a new process: the index is rebuilt, the lane resumes
    await second.open(Surface.CLI)
    await second.memory.lane.drain()
    counts = await _counts(second)
    assert counts == (0, 0)
    ctx = await second.access.context_for(owner, Surface.CLI, "req-2")
    found = await second.memory.search(SearchRequest(org_id="local", query="ledger"), ctx)
    assert len(found.results) == 5
    assert all(h.signals.vector_rank is not None for h in found.results)
    await second.close()


async def _counts(services: Services) -> tuple[int, int]:
    status = await services.status.status(None, [])
    home = next(o for o in status.organisations if o.org_id == "local")
    return home.embedding_pending or 0, home.embedding_failed or 0
