"""``tessera reembed`` on the embedded SurrealDB store, through the composition root.

A run interrupted by a failing model and a restart resumes without embedding
a chunk twice; after the switch the store opens with the new embedder (and
refuses the old one, ``embedder_mismatch``), holds no vector of the old model,
and its index snapshot is of the new model. Two offline embedders: the
hashing bag of words at 64 dimensions (served first) and at 32 (the target).
"""

from collections.abc import Sequence
from pathlib import Path

import pytest
from dependency_injector import providers

from adapters.inmemory.hashing_embedder import HashingEmbedder
from application.indexing.snapshots import SnapshotOutcome
from application.memory.commands import RememberRequest, SearchRequest
from application.operations.reembed.records import ReembedState
from application.ports import Embedder
from application.ports.records import EmbeddingSpace, Vector
from application.services import Services
from domain.errors import ConflictError
from domain.policy import Surface
from domain.reasons import ReasonCode
from entrypoints.container import build_container
from entrypoints.settings import load_settings

pytestmark = pytest.mark.slow

CLI = Surface.CLI
NOTES = [f"Note {n}: the {w} sits on shelf {n} of the archive." for n, w in enumerate(
    ["atlas", "ledger", "compass", "lantern", "quill", "sextant", "globe", "abacus",
     "telescope", "hourglass", "inkwell", "map", "barometer", "chronometer"]
)]


class Target:
    """The next model, counting the texts it embeds; fails at one call when told."""

    def __init__(self) -> None:
        self._inner = HashingEmbedder(dimension=32)
        self.texts: list[str] = []
        self.fail_at: int | None = None
        self.calls = 0

    @property
    def space(self) -> EmbeddingSpace:
        return self._inner.space

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        self.calls += 1
        if self.fail_at is not None and self.calls == self.fail_at:
            raise RuntimeError("model unavailable")
        self.texts.extend(texts)
        return await self._inner.embed(texts)


async def _open(data: Path, serving: Embedder, target: Target) -> Services:
    settings = load_settings({"TESSERA_DATA_DIR": str(data)})
    container = build_container(settings)
    container.embedder.override(serving)
    catalog = {"next": target}
    container.embedders.override(providers.Object(catalog.__getitem__))
    services = container.services()
    try:
        await services.open(CLI)
    except BaseException:
        await services.close()
        raise
    return services


async def test_a_restarted_run_resumes_then_the_store_serves_only_the_new_model(
    tmp_path: Path,
) -> None:
    target = Target()
    services = await _open(tmp_path, HashingEmbedder(64), target)
    assert services.bootstrap_key is not None
    owner_key = services.bootstrap_key.key
    _, ctx = await services.session(owner_key, CLI)
    for note in NOTES:
        await services.memory.remember(RememberRequest(org_id="local", content=note), ctx)
    await services.memory.lane.drain()
    services.reembed._batch = 4
    target.fail_at = 3  # two pages staged, then the model fails
    failed = await services.reembed.run("next", None, CLI)
    assert failed.state is ReembedState.FAILED and failed.done == 8
    await services.close()  # the process stops mid-run

    services = await _open(tmp_path, HashingEmbedder(64), target)
    interrupted = await services.reembed.status(None)
    assert (interrupted.state, interrupted.done, interrupted.total) == ("failed", 8, len(NOTES))
    target.fail_at = None
    done = await services.reembed.run("next", None, CLI)
    assert done.state is ReembedState.DONE, done.error
    assert sorted(target.texts) == sorted(NOTES)  # each chunk embedded once over both runs
    await services.close()

    with pytest.raises(ConflictError) as caught:  # the old model is refused now
        await _open(tmp_path, HashingEmbedder(64), target)
    assert caught.value.reason is ReasonCode.EMBEDDER_MISMATCH
    services = await _open(tmp_path, HashingEmbedder(32), target)  # no embedder_mismatch
    snapshots = services.recall.readiness.snapshots
    assert snapshots is not None  # the snapshot saved after the switch is of the new model
    assert snapshots.outcomes["local"] is SnapshotOutcome.LOADED
    store = services.memory._store
    entries = await store.scan_index_entries("local", None, 100)
    assert len(entries) == len(NOTES) and {len(e.vector or []) for e in entries} == {32}
    assert (await services.reembed.status(None)).state is ReembedState.IDLE
    _, ctx = await services.session(owner_key, CLI)
    found = await services.memory.search(
        SearchRequest(org_id="local", query="telescope shelf"), ctx
    )
    assert found.results[0].text == NOTES[8]
    assert found.results[0].signals.vector_rank is not None
    await services.close()
