"""Imports over HTTP as a client uses them: start, poll, re-import, upload, refuse, cancel."""

import io
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from litestar.testing import TestClient

from adapters.inmemory.hashing_embedder import HashingEmbedder
from adapters.inmemory.import_store import InMemoryImportStore
from adapters.sources.registry import source_adapters
from application.services import Services
from application.sources.import_jobs import ImportSetup
from entrypoints.container import build_container
from entrypoints.http.app import create_app
from entrypoints.settings import load_settings
from tests.e2e.conftest import services_over_fakes
from tests.support import archives

BASE = "/api/sources/imports"
UPLOAD_LIMIT = 300_000


class Site:
    def __init__(self, client: TestClient[Any], services: Services, key: str, root: Path) -> None:
        self.client = client
        self.services = services
        self.key = key
        self.root = root

    def call(self, method: str, path: str, key: str | None = None, **kw: Any) -> Any:
        headers = {"authorization": f"Bearer {key or self.key}"}
        return self.client.request(method, path, headers=headers, **kw)

    def start(self, path: Path | str, adapter: str, **kw: Any) -> dict[str, Any]:
        response = self.call("POST", BASE, json={"path": str(path), "adapter": adapter, **kw})
        assert response.status_code == 202, response.text
        answer: dict[str, Any] = response.json()
        return answer

    def wait(self, import_id: str, key: str | None = None) -> dict[str, Any]:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            record: dict[str, Any] = self.call("GET", f"{BASE}/{import_id}", key).json()
            if record["status"] not in {"pending", "running"}:
                return record
            time.sleep(0.05)
        pytest.fail(f"import {import_id} did not finish")


def _fakes(root: Path) -> Services:
    """The reference adapters, with imports configured under ``root``."""
    setup = ImportSetup(
        store=InMemoryImportStore(),
        adapters=source_adapters(),
        root=root,
        max_upload_bytes=UPLOAD_LIMIT,
    )
    return services_over_fakes(imports=setup)


def _surreal(data_dir: Path) -> Services:
    env = {
        "TESSERA_DATA_DIR": str(data_dir),
        "TESSERA_DB_URL": "mem://",
        "TESSERA_IMPORT_MAX_UPLOAD_MB": "1",
    }
    container = build_container(load_settings(env))
    container.embedder.override(HashingEmbedder())
    return container.services()


@pytest.fixture(params=["fakes", "surrealdb"])
def site(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Site]:
    root = tmp_path / "imports"
    root.mkdir()
    services = _fakes(root) if request.param == "fakes" else _surreal(tmp_path)
    with TestClient(app=create_app(services)) as client:
        assert services.bootstrap_key is not None
        yield Site(client, services, services.bootstrap_key.key, root)


def test_a_start_neither_json_nor_an_upload_is_415_and_not_read(site: Site) -> None:
    mbox = archives.build_mbox(site.root).path
    body = msgspec.json.encode({"path": str(mbox), "adapter": "mbox"})
    for content_type in ("text/plain", None):
        headers = {"authorization": f"Bearer {site.key}"}
        if content_type is not None:
            headers["content-type"] = content_type
        answer = site.client.post(BASE, content=body, headers=headers)
        assert answer.status_code == 415, answer.text
        assert answer.json()["error"]["reason"] == "unsupported_media_type"
    assert site.call("GET", BASE).json() == []  # nothing started


def test_an_import_runs_to_completion_and_a_reimport_adds_nothing(site: Site) -> None:
    mbox = archives.build_mbox(site.root).path
    started = site.start(mbox, "mbox")
    assert started["adapter"] == "mbox" and started["target"]["scope"] == "private"
    done = site.wait(started["id"])
    assert done["status"] == "completed", done
    counters = done["counters"]
    assert (counters["read"], counters["written"], counters["duplicates"]) == (6, 4, 1)
    assert (counters["skipped"], counters["failed"]) == (1, 0)
    assert 0 <= counters["embedding_pending"] <= counters["written"]  # the lane works on
    assert done["checkpoint"] == "mbox:5"
    skipped = [(s["record_id"], s["reason"]) for s in done["skipped"]]
    assert skipped == [("mail.mbox#4", "malformed")]
    assert set(done) >= {"id", "created_at", "updated_at", "path", "error"}

    found = site.call("POST", "/api/search", json={"query": "Quarterly numbers"}).json()
    assert "Quarterly numbers" in found["results"][0]["text"]  # by its words, at once
    deadline = time.monotonic() + 30
    while site.call("GET", f"{BASE}/{started['id']}").json()["counters"]["embedding_pending"]:
        assert time.monotonic() < deadline, "the lane never caught up"
        time.sleep(0.05)

    again = site.wait(site.start("mail.mbox", "mbox")["id"])  # relative: under the root
    assert again["status"] == "completed"
    assert (again["counters"]["written"], again["counters"]["duplicates"]) == (0, 5)
    listed = site.call("GET", BASE).json()
    assert [item["id"] for item in listed] == [again["id"], done["id"]]


def test_an_uploaded_archive_is_imported(site: Site, tmp_path: Path) -> None:
    jsonl = archives.build_jsonl(tmp_path).path
    response = site.call(
        "POST", BASE, files={"file": ("chats.jsonl", jsonl.read_bytes())}, data={"adapter": "jsonl"}
    )
    assert response.status_code == 202, response.text
    done = site.wait(response.json()["id"])
    assert done["status"] == "completed", done
    assert (done["counters"]["written"], done["counters"]["skipped"]) == (3, 3)
    assert Path(done["path"]).is_relative_to(site.root.resolve())

    vault = archives.build_markdown(tmp_path).path
    packed = io.BytesIO()
    with zipfile.ZipFile(packed, "w") as zipped:
        for file in vault.rglob("*"):
            if file.is_file():
                zipped.write(file, Path("vault") / file.relative_to(vault))
    response = site.call(
        "POST", BASE, files={"file": ("vault.zip", packed.getvalue())}, data={"adapter": "markdown"}
    )
    assert response.status_code == 202, response.text
    done = site.wait(response.json()["id"])
    assert (done["status"], done["counters"]["written"]) == ("completed", 4)


def test_an_upload_over_the_limit_is_refused_with_the_limit_stated(site: Site) -> None:
    limit = site.services.imports.max_upload_bytes  # type: ignore[union-attr]
    response = site.call(
        "POST", BASE, files={"file": ("big.mbox", b"x" * (limit + 1))}, data={"adapter": "mbox"}
    )
    assert response.status_code == 413
    error = response.json()["error"]
    assert error["reason"] == "content_too_large" and str(limit) in error["detail"]
    assert site.call("GET", BASE).json() == []


def test_paths_outside_the_root_unknown_adapters_and_missing_archives_are_refused(
    site: Site, tmp_path: Path
) -> None:
    outside = archives.build_mbox(tmp_path).path  # tmp_path holds the root, not under it
    (site.root / "sneaky.mbox").symlink_to(outside)
    for path in (outside, "../mail.mbox", site.root / "sneaky.mbox"):
        response = site.call("POST", BASE, json={"path": str(path), "adapter": "mbox"})
        assert response.status_code == 422, response.text
        assert response.json()["error"]["reason"] == "path_outside_import_root"
    response = site.call("POST", BASE, json={"path": "mail.mbox", "adapter": "pst"})
    assert (response.status_code, response.json()["error"]["reason"]) == (422, "unknown_adapter")
    response = site.call("POST", BASE, json={"path": "nothing.mbox", "adapter": "mbox"})
    assert (response.status_code, response.json()["error"]["reason"]) == (404, "not_found")
    response = site.call("POST", BASE, json={"path": "x", "adapter": "mbox", "color": "red"})
    assert (response.status_code, response.json()["error"]["reason"]) == (400, "unknown_field")
    assert site.call("GET", BASE).json() == []


def _other_org_key(site: Site) -> str:
    def admin(path: str, body: dict[str, Any]) -> Any:
        response = site.call("POST", path, json=body)
        assert response.status_code < 300, response.text
        return response.json()

    admin("/api/admin/orgs", {"name": "rival"})
    admin("/api/admin/principals", {"name": "eve", "org": "rival", "org_role": "owner"})
    return str(admin("/api/admin/keys", {"principal": "eve", "org": "rival"})["key"])


def test_another_organisations_key_gets_not_found(site: Site) -> None:
    archives.build_mbox(site.root)
    import_id = site.wait(site.start("mail.mbox", "mbox")["id"])["id"]
    other = _other_org_key(site)
    for method, path in (
        ("GET", f"{BASE}/{import_id}"),
        ("POST", f"{BASE}/{import_id}/resume"),
        ("POST", f"{BASE}/{import_id}/cancel"),
    ):
        response = site.call(method, path, key=other)
        assert (response.status_code, response.json()["error"]["reason"]) == (404, "not_found")
    assert site.call("GET", BASE, key=other).json() == []
    assert site.call("GET", f"{BASE}/{import_id}").json()["status"] == "completed"


def _big_jsonl(root: Path, n: int) -> Path:
    path = root / "many.jsonl"
    path.write_bytes(b"\n".join(msgspec.json.encode(archives.conversation(i)) for i in range(n)))
    return path


def test_pause_resume_and_cancel(site: Site) -> None:
    _big_jsonl(site.root, 1500)
    import_id = site.start("many.jsonl", "jsonl")["id"]
    paused = site.call("POST", f"{BASE}/{import_id}/pause").json()
    assert paused["status"] == "paused", paused
    assert paused["counters"]["read"] < 1500
    assert "import.pause" in _import_actions(site)
    resumed = site.call("POST", f"{BASE}/{import_id}/resume")
    assert resumed.status_code == 202 and resumed.json()["status"] == "running"
    done = site.wait(import_id)
    counters = done["counters"]
    assert (done["status"], counters["read"], counters["written"]) == ("completed", 1500, 1500)
    assert counters["duplicates"] == 0

    (site.root / "many.jsonl").rename(site.root / "again.jsonl")
    _big_jsonl(site.root, 3000)  # 1500 known, 1500 new
    second = site.start("many.jsonl", "jsonl")["id"]
    cancelled = site.call("POST", f"{BASE}/{second}/cancel").json()
    assert cancelled["status"] == "cancelled"
    assert cancelled["counters"]["read"] < 3000
    time.sleep(0.3)
    after = site.call("GET", f"{BASE}/{second}").json()
    assert after["status"] == "cancelled" and after["counters"] == cancelled["counters"]
    assert site.call("POST", f"{BASE}/{second}/resume").json()["status"] == "cancelled"

    assert {"import.start", "import.resume", "import.cancel"} <= _import_actions(site)


def _import_actions(site: Site) -> set[str]:
    """The import receipts among the latest (each imported record has its own too)."""
    receipts = site.call("GET", "/api/audit", params={"limit": 1000}).json()
    assert "many.jsonl" not in str(receipts)  # a hash of the path, never the path
    return {r["action"] for r in receipts if r["action"].startswith("import.")}
