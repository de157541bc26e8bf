"""The real wiring: embedded surrealkv store, offline ONNX embedder, in-process index."""

from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from domain.policy import Surface
from entrypoints.container import build_container
from entrypoints.http.app import create_app
from entrypoints.settings import load_settings

pytestmark = pytest.mark.slow


def _client(data_dir: Path, **env: str) -> tuple[Any, Any]:
    settings = load_settings({"TESSERA_DATA_DIR": str(data_dir), **env})
    services = build_container(settings).services()
    return TestClient(app=create_app(services)), services


_keys: dict[Path, str] = {}


def _authorize(client: Any, services: Any, data_dir: Path) -> None:
    """The first start made the owner's key; later starts reuse it."""
    if services.bootstrap_key is not None:
        _keys[data_dir] = services.bootstrap_key.key
    client.headers["authorization"] = f"Bearer {_keys[data_dir]}"


@pytest.mark.parametrize("index", ["inprocess", "surreal"])
def test_remember_recall_and_survive_a_restart(tmp_path: Path, index: str) -> None:
    client, services = _client(tmp_path, TESSERA_INDEX=index)
    with client:
        _authorize(client, services, tmp_path)
        health = client.get("/api/health").json()
        assert health["engine"].lower().startswith("surreal")
        assert health["store_url_kind"] == "surrealkv"
        assert (health["embedder_model"], health["embedding_dimension"]) == (
            "all-MiniLM-L6-v2-onnx-int8",
            384,
        )
        assert health["retrieval_index"] == index
        notes = [
            "My sister Ana's birthday is on the 14th of June.",
            "The wifi password at the cabin is taped under the router.",
            "I started learning the cello in September.",
        ]
        ids = [
            # the vectors are needed after the restart: wait for them (the lane embeds later)
            client.post("/api/memory/remember", json={"content": n, "wait": "indexed"}).json()[
                "source_id"
            ]
            for n in notes
        ]
        hits = client.post("/api/search", json={"query": "when is Ana's birthday?"}).json()
        assert hits["results"][0]["source_id"] == ids[0]

    client, services = _client(tmp_path, TESSERA_INDEX=index)
    with client:  # a new process would do the same: reopen the directory, rebuild the index
        assert services.bootstrap_key is None  # the owner exists already
        _authorize(client, services, tmp_path)
        hits = client.post("/api/search", json={"query": "musical instrument lessons"}).json()
        assert hits["results"][0]["source_id"] == ids[2]
        assert hits["results"][0]["signals"]["vector_rank"] == 1
        # the budget counts the rendering (a dated header, then the note): 30 held the
        # note's words alone, not the pack a reader reads
        pack = client.post(
            "/api/context/pack", json={"query": "cabin wifi", "token_budget": 60}
        ).json()
        assert pack["items"][0]["source_id"] == ids[1]
        assert pack["token_count"] <= pack["rendered_token_count"] <= 60


async def test_a_different_embedder_on_existing_data_is_refused(tmp_path: Path) -> None:
    from adapters.inmemory.hashing_embedder import HashingEmbedder
    from application.memory.commands import RememberRequest
    from domain.errors import ConflictError
    from domain.reasons import ReasonCode

    settings = load_settings({"TESSERA_DATA_DIR": str(tmp_path)})
    services = build_container(settings).services()
    issued = await services.open(Surface.CLI)
    assert issued is not None
    _, ctx = await services.session(issued.key, Surface.CLI)
    await services.memory.remember(RememberRequest(org_id="local", content="hello"), ctx)
    await services.close()

    container = build_container(settings)
    container.embedder.override(HashingEmbedder())
    other = container.services()
    with pytest.raises(ConflictError) as caught:
        await other.open(Surface.CLI)
    assert caught.value.reason is ReasonCode.EMBEDDER_MISMATCH
    assert "all-MiniLM-L6-v2-onnx-int8" in caught.value.detail
    await other.close()
