"""Dropping an organisation from the CLI and over HTTP gives its space back.

Before, nothing dropped an organisation but a benchmark, and a dropped one's
bytes stayed in the data directory; now ``tessera admin org drop`` previews,
drops with the token, and the store is compacted.
"""

import json
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import TESSERA, tessera_env


def _run(data_dir: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*TESSERA, *args],
        env=tessera_env(data_dir, **env),
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def _ok(data_dir: Path, *args: str, **env: str) -> str:
    out = _run(data_dir, *args, **env)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


@pytest.mark.slow
def test_the_cli_previews_drops_and_compacts(tmp_path: Path) -> None:
    _ok(tmp_path, "admin", "org", "create", "acme")
    _ok(tmp_path, "admin", "user", "create", "boss", "--org", "acme", "--role", "owner")
    key = _ok(tmp_path, "admin", "key", "create", "--org", "acme", "--principal", "boss")
    acme_key = key.strip().splitlines()[-1]
    for n in range(3):
        _ok(
            tmp_path,
            "remember",
            f"Acme note {n}: the vault opens at {n} o'clock.",
            TESSERA_API_KEY=acme_key,
        )
    shown = _ok(tmp_path, "admin", "org", "drop", "acme")
    preview = json.loads(shown[: shown.rindex("}") + 1])
    assert (preview["sources"], preview["principals"], preview["keys"]) == (3, 1, 1)
    assert f"--token {preview['token']}" in shown
    stale = _run(tmp_path, "admin", "org", "drop", "acme", "--token", "x" * 32)
    assert stale.returncode == 1 and "preview_stale" in stale.stderr + stale.stdout
    dropped = json.loads(_ok(tmp_path, "admin", "org", "drop", "acme", "--token", preview["token"]))
    assert dropped["compacted"] is True
    assert 0 < dropped["bytes_after"] < dropped["bytes_before"]
    assert "acme" not in _ok(tmp_path, "status")
    gone = _run(tmp_path, "recall", "vault", TESSERA_API_KEY=acme_key)
    assert gone.returncode == 4 and "invalid_api_key" in gone.stderr + gone.stdout


def test_http_drop_statuses(client: Any) -> None:
    org = client.post("/api/admin/orgs", json={"name": "acme"}).json()
    assert client.post("/api/admin/orgs/local/drop-preview").json()["error"]["reason"] == (
        "home_organization"
    )
    assert client.post("/api/admin/orgs/nope/drop-preview").status_code == 404
    preview = client.post("/api/admin/orgs/acme/drop-preview")
    assert preview.status_code == 200, preview.text
    stale = client.post(f"/api/admin/orgs/{org['org_id']}/drop", json={"token": "t"})
    assert stale.status_code == 409 and stale.json()["error"]["reason"] == "preview_stale"
    done = client.post("/api/admin/orgs/acme/drop", json={"token": preview.json()["token"]})
    assert done.status_code == 200, done.text
    assert done.json()["compacted"] is False  # the reference store has nothing to rewrite
    assert client.post("/api/admin/orgs/acme/drop-preview").status_code == 404


def _files_holding(directory: Path, needle: str) -> list[str]:
    found = []
    for path in directory.rglob("*"):
        if path.is_file() and needle.encode() in path.read_bytes():
            found.append(str(path.relative_to(directory)))
    return found


@pytest.mark.slow
def test_deleted_text_leaves_the_files_when_the_operator_compacts(tmp_path: Path) -> None:
    """A delete makes the text unreachable at once; ``admin store compact`` takes it off disk."""
    canary = "zq7canary pasted password hunter2x"
    kept = "The quarterly review moved to Thursday."
    answer = json.loads(_ok(tmp_path, "remember", canary, "--json"))
    _ok(tmp_path, "remember", kept)
    _ok(tmp_path, "correct", answer["source_id"], "delete", "--reason", "a password", "--apply")
    # the embedded engine is log-structured: the delete left the bytes in its files
    assert _files_holding(tmp_path, "zq7canary")
    member = _run(tmp_path, "admin", "store", "compact", TESSERA_API_KEY="not-a-key")
    assert member.returncode != 0
    result = json.loads(_ok(tmp_path, "admin", "store", "compact"))
    assert result["compacted"] is True
    assert _files_holding(tmp_path, "zq7canary") == []
    # the rewritten store is owner-only, as the README promises (wal/ was left 0750)
    store = tmp_path / "db"
    loose = [p for p in [store, *store.rglob("*")] if stat.S_IMODE(p.stat().st_mode) & 0o077]
    assert loose == []
    assert "Thursday" in _ok(tmp_path, "recall", "quarterly review")
