"""Every CandidateStore and GraphStore adapter against its contract."""

from collections.abc import AsyncIterator

import pytest

from adapters.inmemory.candidate_store import InMemoryCandidateStore
from adapters.inmemory.graph_store import InMemoryGraphStore
from adapters.surreal.candidate_store import SurrealCandidateStore
from adapters.surreal.graph_store import SurrealGraphStore
from adapters.surreal.memory_store import SurrealMemoryStore
from application.ports.records import EmbeddingSpace
from application.ports.reflection import CandidateStore, GraphStore
from application.ports.reflection_records import Mention
from contracts.candidate_store import CandidateStoreContract, sample_candidate
from contracts.graph_store import GraphStoreContract, sample_entity

_SPACE = EmbeddingSpace(model="test", dimension=4)


class TestInMemoryCandidates(CandidateStoreContract):
    @pytest.fixture
    def candidates(self) -> CandidateStore:
        return InMemoryCandidateStore()


class TestInMemoryGraph(GraphStoreContract):
    @pytest.fixture
    def graph(self) -> GraphStore:
        return InMemoryGraphStore()


@pytest.mark.slow
class TestSurrealCandidates(CandidateStoreContract):
    @pytest.fixture
    async def candidates(self) -> AsyncIterator[CandidateStore]:
        memory = SurrealMemoryStore("mem://")
        yield SurrealCandidateStore(memory.connection)
        await memory.close()


@pytest.mark.slow
class TestSurrealGraph(GraphStoreContract):
    @pytest.fixture
    async def graph(self) -> AsyncIterator[GraphStore]:
        memory = SurrealMemoryStore("mem://")
        for org in ("org-a", "org-b"):
            await memory.prepare(org, _SPACE)
        yield SurrealGraphStore(memory.connection)
        await memory.close()


@pytest.mark.slow
async def test_reads_after_the_organisation_was_dropped_find_nothing() -> None:
    memory = SurrealMemoryStore("mem://")
    try:
        graph = SurrealGraphStore(memory.connection)
        candidates = SurrealCandidateStore(memory.connection)
        await graph.promote([sample_entity()], [], [Mention(entity_id="e1", chunk_id="k1")])
        await candidates.add_candidates([sample_candidate()])
        await memory.drop_organization("org-a")  # removes the namespace behind their backs
        assert await graph.get_entities("org-a", ["e1"]) == {}
        assert await graph.mentions_of("org-a", ["e1"]) == {}
        assert await graph.entity_lexical("org-a", "SurrealDB", 5, None) == []
        assert await candidates.list_candidates("org-a", None, None, 5) == []
    finally:
        await memory.close()
