"""Operator diagnostics: GET /api/status, `tessera status`, and health while the service starts."""

import asyncio
import logging
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from litestar.testing import TestClient

from domain.policy import Surface
from entrypoints.http.app import create_app
from entrypoints.http.slow_log import SlowRequestLog
from entrypoints.http.start_gate import StartGate
from tests.e2e.conftest import TESSERA, services_over_fakes, tessera_env


def test_the_owner_sees_counts_index_queues_and_recent_errors(client: Any) -> None:
    secret = "the vault combination is 31-7-22"
    assert client.post("/api/memory/remember", json={"content": secret}).status_code == 201
    logging.getLogger("tessera.test").warning("a diagnostic warning about %s", "ids")
    response = client.get("/api/status")
    assert response.status_code == 200, response.text
    status = response.json()
    assert status["retrieval_index"] and status["embedding_dimension"] == 64
    assert status["audit_pending"] >= 0
    home = next(o for o in status["organisations"] if o["org_id"] == "local")
    assert home["chunks"] == 1 and home["sources"] == 1 and home["index_ready"] is True
    assert home["index"]["kind"] in {"exact", "ivf"} and home["index"]["resident"] is True
    assert home["index"]["resident_rows"] == 1 and home["index"]["resident_bytes"] > 0
    assert set(status["store"]) == {
        "data_bytes",
        "checkpoints",
        "written_since_checkpoint",
        "checkpoint_every",
    }
    audit = next(q for q in status["queues"] if q["name"] == "audit_receipts")
    assert audit["depth"] == status["audit_pending"]
    messages = [e["message"] for e in status["recent_errors"]]
    assert "a diagnostic warning about ids" in messages
    assert "31-7-22" not in response.text


def test_only_the_install_owner_may_read_it(client: Any) -> None:
    org = client.post("/api/admin/orgs", json={"name": "acme"}).json()
    boss = client.post(
        "/api/admin/principals", json={"name": "boss", "org": org["org_id"], "org_role": "owner"}
    ).json()
    key = client.post(
        "/api/admin/keys", json={"principal": boss["principal_id"], "org": org["org_id"]}
    ).json()["key"]
    response = client.get("/api/status", headers={"authorization": f"Bearer {key}"})
    assert response.status_code == 403
    assert response.json()["error"]["reason"] == "admin_required"


def test_tessera_status_prints_the_same_facts(tmp_path: Path) -> None:
    env = tessera_env(tmp_path)
    run = [*TESSERA, "remember", "The gate code changed on Monday."]
    assert subprocess.run(run, env=env, capture_output=True, timeout=120).returncode == 0
    out = subprocess.run(
        [*TESSERA, "status"], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert out.returncode == 0, out.stderr
    assert "organisations: 1" in out.stdout
    assert "local (local): 1 sources, 1 chunks, index ready" in out.stdout
    assert "MB on disk" in out.stdout and "checkpoints" in out.stdout
    assert "queue audit_receipts: " in out.stdout
    # the remember process saved the index's snapshot on its way out
    assert "    index: exact, snapshot " in out.stdout and "0 changes behind" in out.stdout
    # what the status process holds of the index (it opened the home organisation)
    assert "; in memory: 1 rows, ~" in out.stdout
    assert "gate code" not in out.stdout


def test_a_slow_request_is_logged_by_its_shape_and_shows_in_status() -> None:
    services = services_over_fakes()
    issued = asyncio.run(services.control.bootstrap(Surface.CLI))
    assert issued is not None
    app = create_app(services, middleware=[SlowRequestLog(threshold_ms=0)])
    with TestClient(app=app) as client:
        client.headers["authorization"] = f"Bearer {issued.key}"
        client.post("/api/search", json={"query": "where is the secret ledger"})
        client.get("/api/memory/sources/some-id-the-caller-chose")
        status = client.get("/api/status").json()
    slow = [e["message"] for e in status["recent_errors"] if e["logger"] == "tessera.slow"]
    assert any(m.startswith("slow request: POST /api/search -> 200 in ") for m in slow), slow
    assert any("GET /api/memory/sources/{source_id:str} -> 404" in m for m in slow), slow
    assert not any("ledger" in m or "some-id" in m for m in slow)


def test_while_starting_health_says_so_and_a_search_waits_for_the_open() -> None:
    services = services_over_fakes()
    gate = StartGate()
    app = create_app(services, middleware=[gate], open_on_startup=False)
    with TestClient(app=app) as client, client.portal() as portal:
        starting = client.get("/api/health")
        assert starting.status_code == 503 and starting.json() == {"status": "starting"}
        assert starting.headers["retry-after"] == "1"
        issued = portal.call(services.open, Surface.API)  # opens while the app listens
        assert issued is not None
        client.headers["authorization"] = f"Bearer {issued.key}"
        gate.wait_s = 0.05  # a request held past its wait is told why, never failed blind
        held = client.post("/api/search", json={"query": "anything"})
        assert held.status_code == 503 and held.json()["error"]["reason"] == "starting"
        gate.wait_s = 30
        with ThreadPoolExecutor(1) as pool:
            waiting = pool.submit(client.post, "/api/search", json={"query": "anything"})
            time.sleep(0.2)
            assert not waiting.done()  # held at the gate, not failed
            portal.call(_open_gate, gate)
            assert waiting.result(timeout=30).status_code == 200
        assert client.get("/api/health").json()["status"] == "ok"


async def _open_gate(gate: StartGate) -> None:
    gate.open()  # on the app's own loop, as serve does
