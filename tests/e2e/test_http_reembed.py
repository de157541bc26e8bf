"""``/api/admin/reembed`` through the real app: start, progress, refusals, switch.

Over the reference adapters: the hashing embedder at 64 dimensions serves,
the same at 32 is the target. The build runs in the app's background while
the test polls the status route, as ``tessera reembed`` does.
"""

import asyncio
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

import pytest
from litestar.testing import TestClient

from adapters.inmemory.hashing_embedder import HashingEmbedder
from application.ports.records import EmbeddingSpace, Vector
from application.services import Services
from domain.policy import Surface
from entrypoints.http.app import create_app
from tests.e2e.conftest import services_over_fakes

NOTES = [
    "The release train leaves on Thursday morning.",
    "Ana prefers green tea over coffee.",
    "The staging database lives in the Frankfurt region.",
    "Bruno owns the billing migration this quarter.",
]


class Gate:
    """The target model; holds its second call until released (from the test's thread)."""

    def __init__(self) -> None:
        self._inner = HashingEmbedder(dimension=32)
        self.hold = False
        self.release = threading.Event()
        self.calls = 0

    @property
    def space(self) -> EmbeddingSpace:
        return self._inner.space

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        self.calls += 1
        if self.hold and self.calls >= 2:
            await asyncio.to_thread(self.release.wait, 30)
        return await self._inner.embed(texts)


@pytest.fixture
def gate() -> Gate:
    return Gate()


@pytest.fixture
def app(gate: Gate) -> Iterator[tuple[TestClient, Services]]:  # type: ignore[type-arg]
    catalog = {"next": gate, "same": HashingEmbedder()}
    services = services_over_fakes(embedders=catalog.__getitem__)
    issued = asyncio.run(services.control.bootstrap(Surface.CLI))
    assert issued is not None
    services.reembed._batch = 2
    with TestClient(app=create_app(services)) as client:
        client.headers["authorization"] = f"Bearer {issued.key}"
        for note in NOTES:
            body = {"content": note, "wait": "indexed"}
            assert client.post("/api/memory/remember", json=body).status_code == 201
        yield client, services


def _until_settled(client: TestClient) -> dict[str, Any]:  # type: ignore[type-arg]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        status: dict[str, Any] = client.get("/api/admin/reembed").json()
        if status["state"] not in ("running", "switching"):
            return status
        time.sleep(0.05)
    raise AssertionError("the re-embed did not finish")


def test_refusals_name_their_reason(app: tuple[TestClient, Services]) -> None:  # type: ignore[type-arg]
    client, _ = app
    unknown = client.post("/api/admin/reembed", json={"embedder": "nope"})
    assert unknown.status_code == 422
    assert unknown.json()["error"]["reason"] == "unknown_embedder"
    same = client.post("/api/admin/reembed", json={"embedder": "same"})
    assert same.status_code == 409 and same.json()["error"]["reason"] == "reembed_same_model"
    extra = client.post("/api/admin/reembed", json={"embedder": "next", "org": "x"})
    assert extra.status_code == 400
    idle = client.get("/api/admin/reembed").json()
    assert idle["state"] == "idle" and idle["serving_model"] == "hashing-bow-64"


def test_a_member_may_not_reembed(app: tuple[TestClient, Services]) -> None:  # type: ignore[type-arg]
    client, services = app
    org = services.home_org_id
    created = client.post("/api/admin/principals", json={"name": "ana", "org": org})
    assert created.status_code in (200, 201), created.text
    key = client.post("/api/admin/keys", json={"principal": "ana", "org": org}).json()["key"]
    headers = {"authorization": f"Bearer {key}"}
    refused = client.post("/api/admin/reembed", json={"embedder": "next"}, headers=headers)
    assert refused.status_code == 403 and refused.json()["error"]["reason"] == "admin_required"
    assert client.get("/api/admin/reembed", headers=headers).status_code == 403


def test_search_answers_during_the_run_and_the_switch_follows(
    app: tuple[TestClient, Services],  # type: ignore[type-arg]
    gate: Gate,
) -> None:
    client, _ = app
    query = {"query": "green tea"}
    before = client.post("/api/search", json=query).json()["results"][0]["chunk_id"]
    gate.hold = True
    started = client.post("/api/admin/reembed", json={"embedder": "next"})
    assert started.status_code == 202, started.text
    assert started.json()["target_model"] == "hashing-bow-32"
    again = client.post("/api/admin/reembed", json={"embedder": "next"})
    assert again.status_code == 409 and again.json()["error"]["reason"] == "reembed_running"
    for _ in range(3):  # the old model keeps answering while the build waits
        hits = client.post("/api/search", json=query).json()["results"]
        assert hits[0]["chunk_id"] == before
    status = client.get("/api/admin/reembed").json()
    assert status["state"] == "running" and status["serving_model"] == "hashing-bow-64"
    assert status["total"] == len(NOTES) and status["done"] < status["total"]
    gate.release.set()
    done = _until_settled(client)
    assert done["state"] == "done", done
    assert done["done"] == done["total"] == len(NOTES)
    assert done["serving_model"] == "hashing-bow-32"
    hits = client.post("/api/search", json=query).json()["results"]
    assert hits[0]["chunk_id"] == before and hits[0]["signals"]["vector_rank"] is not None
    health = client.get("/api/status").json()
    assert health["embedder_model"] == "hashing-bow-32" and health["embedding_dimension"] == 32
    assert health["reembed"]["state"] == "done"
    audit = client.get("/api/audit", params={"limit": 50}).json()
    assert "admin.reembed.done" in str(audit) and "green tea" not in str(audit)


class _ClientBackend:
    """The CLI's backend over the test client: the same routes ``tessera`` calls."""

    description = "service at test"

    def __init__(self, client: TestClient) -> None:  # type: ignore[type-arg]
        self._client = client

    async def call(self, method: str, path: str, body: Any = None, **_: Any) -> Any:
        response = await asyncio.to_thread(self._client.request, method, path, json=body)
        assert response.status_code < 400, response.text
        return response.json()


def test_the_cli_starts_polls_and_reports_the_switch(
    app: tuple[TestClient, Services],  # type: ignore[type-arg]
    capsys: pytest.CaptureFixture[str],
) -> None:
    from entrypoints.cli import _parser
    from entrypoints.reembed_cli import run_reembed

    client, _ = app
    backend = _ClientBackend(client)
    args = _parser().parse_args(["reembed", "--embedder", "next", "--every", "0.05"])
    assert asyncio.run(run_reembed(backend, args)) == 0  # type: ignore[arg-type]
    out = capsys.readouterr()
    assert "reembed done: 4/4 chunks (100 %)" in out.out
    assert "TESSERA_EMBEDDER=next" in out.out
    assert "target hashing-bow-32" in out.err
    args = _parser().parse_args(["reembed", "--status", "--json"])
    assert asyncio.run(run_reembed(backend, args)) == 0  # type: ignore[arg-type]
    assert '"state": "done"' in capsys.readouterr().out
