"""The install owner's store routes for an organisation that has keys but no memory yet.

Such an organisation's namespace exists (its audit receipts are written there)
without the memory schema; the re-embed status and compaction read every
organisation, and answered ``502 store_failed`` for it, before and after a restart.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from adapters.inmemory.hashing_embedder import HashingEmbedder
from application.services import Services
from entrypoints.container import build_container
from entrypoints.http.app import create_app
from entrypoints.settings import load_settings

pytestmark = pytest.mark.slow


@contextmanager
def _serving(data_dir: Path) -> Iterator[tuple[TestClient[Any], Services]]:
    """The app over the embedded on-disk store, as ``tessera serve`` wires it."""
    settings = load_settings({"TESSERA_DATA_DIR": str(data_dir)})
    container = build_container(settings)
    container.embedder.override(HashingEmbedder())
    services = container.services()
    with TestClient(app=create_app(services)) as client:
        yield client, services


def _ok(response: Any) -> Any:
    assert response.status_code < 300, response.text
    return response.json()


def _store_routes_answer(client: TestClient[Any], owner: dict[str, str]) -> None:
    status = _ok(client.get("/api/admin/reembed", headers=owner))
    assert (status["state"], status["done"], status["total"]) == ("idle", 0, 0)
    assert _ok(client.post("/api/admin/compact", headers=owner))["compacted"] is True


def test_store_routes_answer_for_an_organisation_without_memory(tmp_path: Path) -> None:
    with _serving(tmp_path) as (client, services):
        assert services.bootstrap_key is not None
        owner = _bearer(services.bootstrap_key.key)
        _ok(client.post("/api/admin/orgs", json={"name": "acme"}, headers=owner))
        _ok(
            client.post(
                "/api/admin/principals",
                json={"name": "boss", "org": "acme", "org_role": "owner"},
                headers=owner,
            )
        )
        boss = _ok(
            client.post("/api/admin/keys", json={"principal": "boss", "org": "acme"}, headers=owner)
        )["key"]
        # acme's first receipt goes into acme's namespace: it exists, still without memory
        _ok(client.post("/api/admin/keys", json={"principal": "boss"}, headers=_bearer(boss)))
        assert len(_ok(client.get("/api/audit", headers=_bearer(boss)))) >= 1
        _store_routes_answer(client, owner)
    with _serving(tmp_path) as (client, _):  # a restart reads the same namespaces again
        _store_routes_answer(client, owner)


def _bearer(key: str) -> dict[str, str]:
    return {"authorization": f"Bearer {key}"}
