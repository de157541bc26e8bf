"""Locked out: the last owner key stays, and the operator can always recover."""

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import TESSERA, free_port, start_listening, tessera_env

pytestmark = pytest.mark.slow


def _run(
    data_dir: Path, *args: str, stdin: str | None = None, **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*TESSERA, *args],
        env=tessera_env(data_dir, **env),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture
def serving(tmp_path: Path) -> Iterator[tuple[Path, int]]:
    port = free_port()
    proc = start_listening(
        ["serve", "--port", str(port)], tessera_env(tmp_path), f"http://127.0.0.1:{port}/api/health"
    )
    yield tmp_path, port
    proc.terminate()
    proc.wait(timeout=30)


def test_the_last_owner_key_cannot_be_revoked_over_http(client: Any) -> None:
    keys = client.get("/api/admin/keys").json()
    assert len(keys) == 1
    response = client.post(f"/api/admin/keys/{keys[0]['key_id']}/revoke")
    assert response.status_code == 409, response.text
    assert response.json()["error"]["reason"] == "last_owner_key"
    assert client.get("/api/admin/keys").status_code == 200  # still in


def test_a_lost_owner_key_is_recovered_from_the_data_directory(tmp_path: Path) -> None:
    assert _run(tmp_path, "admin", "key", "list").returncode == 0  # first start
    key_file = tmp_path / "credentials" / "owner.key"
    first = key_file.read_text().strip()
    key_file.unlink()
    assert _run(tmp_path, "admin", "key", "list").returncode == 4  # locked out

    out = _run(tmp_path, "admin", "recover-owner-key")
    assert out.returncode == 0, out.stderr
    new = out.stdout.strip().splitlines()[-1]
    assert new.startswith("tsk_") and new != first
    assert key_file.read_text().strip() == new
    assert key_file.stat().st_mode & 0o777 == 0o600
    listed = _run(tmp_path, "admin", "key", "list")
    assert listed.returncode == 0, listed.stderr
    assert len(json.loads(listed.stdout)) == 2
    as_env = _run(tmp_path, "admin", "key", "list", TESSERA_API_KEY=new)
    assert as_env.returncode == 0, as_env.stderr


def test_recovery_refuses_while_the_service_holds_the_directory(
    serving: tuple[Path, int],
) -> None:
    data_dir, port = serving
    out = _run(data_dir, "admin", "recover-owner-key")
    assert out.returncode == 3, out.stdout + out.stderr
    assert f"127.0.0.1:{port}" in out.stderr and "stop" in out.stderr
    assert "Traceback" not in out.stderr


def test_a_person_who_lost_every_key_gets_one_from_the_data_directory(tmp_path: Path) -> None:
    assert _run(tmp_path, "admin", "user", "create", "ana").returncode == 0
    out = _run(tmp_path, "admin", "key", "create", "--principal", "ana")
    first = out.stdout.strip().splitlines()[-1]
    assert (
        _run(tmp_path, "remember", "ana's bike lock is 3141", TESSERA_API_KEY=first).returncode == 0
    )
    # no administrator may mint her another key once she held one
    again = _run(tmp_path, "admin", "key", "create", "--principal", "ana")
    assert again.returncode == 4 and "[key_not_yours]" in again.stderr
    out = _run(tmp_path, "admin", "recover-key", "--principal", "ana")
    assert out.returncode == 0, out.stderr
    new = out.stdout.strip().splitlines()[-1]
    assert new.startswith("tsk_") and new != first and new not in out.stderr
    found = _run(tmp_path, "recall", "bike lock", "--json", TESSERA_API_KEY=new)
    assert "3141" in json.loads(found.stdout)["results"][0]["text"]
    receipts = _run(tmp_path, "admin", "key", "list")
    assert receipts.returncode == 0
    agent = _run(tmp_path, "admin", "agent", "create", "--for", "ana", "bot")
    assert agent.returncode == 0, agent.stderr
    refused = _run(tmp_path, "admin", "recover-key", "--principal", "bot")
    assert refused.returncode == 2 and "its user" in refused.stderr
