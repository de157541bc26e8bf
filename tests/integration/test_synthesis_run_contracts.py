"""Every SynthesisRunStore adapter against its contract, and runs surviving a reopen."""

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from adapters.inmemory.synthesis_runs import InMemorySynthesisRuns
from adapters.surreal.memory_store import SurrealMemoryStore
from adapters.surreal.synthesis_runs import SurrealSynthesisRuns
from application.synthesis.ports import SynthesisRunStore
from contracts.synthesis_runs import SynthesisRunStoreContract, sample_run


class TestInMemorySynthesisRuns(SynthesisRunStoreContract):
    @pytest.fixture
    def runs(self) -> SynthesisRunStore:
        return InMemorySynthesisRuns()


@pytest.mark.slow
class TestSurrealSynthesisRuns(SynthesisRunStoreContract):
    @pytest.fixture
    async def runs(self) -> AsyncIterator[SynthesisRunStore]:
        memory = SurrealMemoryStore("mem://")
        yield SurrealSynthesisRuns(memory.connection)
        await memory.close()


@pytest.mark.slow
async def test_runs_survive_a_reopen(tmp_path: Path) -> None:
    url = f"surrealkv://{tmp_path / 'data'}"
    memory = SurrealMemoryStore(url)
    run = sample_run(artifact_source_id="art", cited_source_ids=["s1"])
    await SurrealSynthesisRuns(memory.connection).save_run(run)
    await memory.close()
    reopened = SurrealMemoryStore(url)
    try:
        runs = SurrealSynthesisRuns(reopened.connection)
        assert await runs.get_run(run.org_id, run.run_id) == run
        assert [r.run_id for r in await runs.runs_citing(run.org_id, "s1")] == [run.run_id]
    finally:
        await reopened.close()
