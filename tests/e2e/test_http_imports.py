"""Imports over HTTP as a client uses them: start, poll, re-import, upload, refuse, cancel."""

import gzip
import io
import lzma
import tarfile
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
import zstandard
from litestar.testing import TestClient

from adapters.inmemory.hashing_embedder import HashingEmbedder
from adapters.inmemory.import_store import InMemoryImportStore
from adapters.sources.registry import source_adapters
from application.imports.import_jobs import ImportSetup
from application.services import Services
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
        #: the import root: each organisation's area and uploads lie under it
        self.import_root = root
        assert services.imports is not None
        #: the home organisation's files: what its path imports read
        self.root = services.imports.area.files(services.home_org_id)

    def call(
        self,
        method: str,
        path: str,
        key: str | None = None,
        headers_extra: dict[str, str] | None = None,
        **kw: Any,
    ) -> Any:
        headers = {"authorization": f"Bearer {key or self.key}", **(headers_extra or {})}
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
    uploads = site.import_root.resolve() / site.services.home_org_id / "uploads"
    assert Path(done["path"]).is_relative_to(uploads)
    assert not Path(done["path"]).exists()  # removed when its import ended
    assert [p for p in uploads.rglob("*") if p.is_file()] == []


def test_a_zipped_mailbox_is_read_as_the_mailbox(site: Site, tmp_path: Path) -> None:
    mbox = archives.build_mbox(tmp_path).path
    packed = io.BytesIO()
    with zipfile.ZipFile(packed, "w") as zipped:
        zipped.write(mbox, "Inbox")  # a name that says nothing: its content does
        zipped.writestr("__MACOSX/._Inbox", b"resource fork")
    response = site.call(
        "POST", BASE, files={"file": ("export.zip", packed.getvalue())}, data={"adapter": "mbox"}
    )
    assert response.status_code == 202, response.text
    done = site.wait(response.json()["id"])
    assert (done["status"], done["counters"]["written"]) == ("completed", 4)
    assert Path(done["path"]).name == "Inbox"


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


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b'{"path": "mail\\u0000.mbox", "adapter": "mbox"}', "invalid_path"),
        (b'{"path": "' + b"a" * 5000 + b'", "adapter": "mbox"}', "invalid_path"),
        (b'{"path": "/' + b"d/" * 2100 + b'x", "adapter": "mbox"}', "invalid_path"),
        (b'{"path": "mail\xff.mbox", "adapter": "mbox"}', "malformed_json"),
    ],
    ids=["nul", "long-name", "long-path", "invalid-utf8"],
)
def test_a_path_no_file_system_takes_is_a_400_with_its_reason(
    site: Site, body: bytes, reason: str
) -> None:
    response = site.call(
        "POST", BASE, content=body, headers_extra={"content-type": "application/json"}
    )
    assert (response.status_code, response.json()["error"]["reason"]) == (400, reason)
    assert site.call("GET", BASE).json() == []


def test_a_json_start_over_its_limit_names_the_json_limit_not_the_upload_one(site: Site) -> None:
    body = b'{"path": "' + b"a" * 70_000 + b'", "adapter": "mbox"}'
    response = site.call(
        "POST", BASE, content=body, headers_extra={"content-type": "application/json"}
    )
    assert response.status_code == 413
    error = response.json()["error"]
    assert error["reason"] == "content_too_large"
    assert "64000" in error["detail"] and "JSON" in error["detail"]
    assert "UPLOAD" not in error["detail"] and "upload may" not in error["detail"]


CANARY = "plumquartz canary 7f3a"


def _canary_mbox(folder: Path, name: str, n: int = 3) -> Path:
    """A mailbox whose every message carries the canary words."""
    messages = (f"From o\nMessage-ID: <c{i}@{name}>\n\n{CANARY} {i}\n\n" for i in range(n))
    (folder / name).write_text("".join(messages))
    return folder / name


def _people(site: Site) -> dict[str, str]:
    """Keys of every principal the attack tries, besides the home organisation's owner."""

    def admin(path: str, body: dict[str, Any], key: str | None = None) -> Any:
        response = site.call("POST", path, key=key, json=body)
        assert response.status_code < 300, response.text
        return response.json()

    def key(name: str, org: str | None = None, by: str | None = None) -> str:
        body = {"principal": name} | ({"org": org} if org else {})
        return str(admin("/api/admin/keys", body, by)["key"])

    admin("/api/admin/principals", {"name": "bob"})
    admin("/api/admin/principals", {"name": "adam", "org_role": "admin"})
    admin(
        "/api/admin/principals",
        {"name": "scribe", "acting_for": "owner", "delegation_days": 30},
    )
    admin("/api/admin/principals", {"name": "stray", "acting_for": "owner"})
    eve = _other_org_key(site)
    admin("/api/admin/principals", {"name": "mallory", "org": "rival"}, eve)
    return {
        "bob": key("bob"),
        "adam": key("adam"),
        "scribe": key("scribe"),
        "stray": key("stray"),
        "eve": eve,
        "mallory": key("mallory", "rival", eve),
    }


def _found(site: Site, key: str) -> list[Any]:
    answer = site.call("POST", "/api/search", key=key, json={"query": CANARY})
    assert answer.status_code == 200, answer.text
    return [r for r in answer.json()["results"] if "canary" in r["text"]]


def test_no_one_imports_another_organisations_or_another_principals_archives(
    site: Site, tmp_path: Path
) -> None:
    people = _people(site)
    _canary_mbox(site.root, "owner.mbox")  # in the home organisation's files
    upload = _canary_mbox(tmp_path, "upload.mbox", n=3000)
    with upload.open("rb") as archive:
        started = site.call(
            "POST", BASE, files={"file": ("upload.mbox", archive)}, data={"adapter": "mbox"}
        )
    assert started.status_code == 202, started.text
    upload_id = started.json()["id"]
    paused = site.call("POST", f"{BASE}/{upload_id}/pause").json()
    assert paused["status"] == "paused", paused  # its upload stays while it may resume
    uploaded = Path(paused["path"])
    assert uploaded.is_file()

    # eve, owner of another organisation, imports "everything" from her own area
    eve = people["eve"]
    own = site.call("POST", BASE, key=eve, json={"path": ".", "adapter": "maildir"})
    assert own.status_code == 202, own.text
    done = site.wait(own.json()["id"], key=eve)
    assert (done["status"], done["counters"]["read"], done["counters"]["written"]) == (
        "completed",
        0,
        0,
    )
    outside = [
        str(uploaded),
        str(uploaded.parent),
        str(site.root / "owner.mbox"),
        str(site.root),
        str(site.import_root),
        "../../local/files/owner.mbox",
        f"../../local/uploads/{uploaded.relative_to(uploaded.parents[2])}",
    ]
    for path in outside:
        for adapter in ("mbox", "maildir"):
            response = site.call("POST", BASE, key=eve, json={"path": path, "adapter": adapter})
            assert response.status_code == 422, (path, response.text)
            assert response.json()["error"]["reason"] == "path_outside_import_root"
    assert _found(site, eve) == []

    # nobody but the organisation's owner imports by path, in either organisation
    for name in ("bob", "adam", "scribe", "stray", "mallory"):
        for path in ("owner.mbox", str(uploaded), "."):
            response = site.call(
                "POST", BASE, key=people[name], json={"path": path, "adapter": "mbox"}
            )
            assert response.status_code == 403, (name, path, response.text)
            assert response.json()["error"]["reason"] == "path_import_not_allowed"
        assert site.call("GET", BASE, key=people[name]).json() == []
    refusals = site.call("GET", "/api/audit", params={"limit": 1000}).json()
    assert sum(r["reason"] == "path_import_not_allowed" for r in refusals) == 4 * 3

    # the owner's own path import reads her files; her upload is not importable by path
    mine = site.wait(site.start("owner.mbox", "mbox")["id"])
    assert (mine["status"], mine["counters"]["written"]) == ("completed", 3)
    again = site.call("POST", BASE, json={"path": str(uploaded), "adapter": "mbox"})
    assert again.json()["error"]["reason"] == "path_outside_import_root"

    # cancelling the upload's import removes the upload
    cancelled = site.call("POST", f"{BASE}/{upload_id}/cancel").json()
    assert cancelled["status"] == "cancelled"
    assert not uploaded.parent.exists()
    gone = site.call("POST", f"{BASE}/{upload_id}/resume").json()
    assert gone["status"] == "cancelled"
    assert _found(site, eve) == []
    assert _found(site, site.key)  # the owner finds her own


MAIL = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "email"
needs_mail = pytest.mark.skipif(
    not (MAIL / "notmuch_lkml.mbox.xz").is_file(),
    reason=f"the notmuch corpora are not at {MAIL} (../shared is absent on this checkout)",
)


def _upload(site: Site, path: Path, adapter: str, name: str | None = None) -> Any:
    with path.open("rb") as archive:
        return site.call(
            "POST", BASE, files={"file": (name or path.name, archive)}, data={"adapter": adapter}
        )


@needs_mail
def test_compressed_real_mail_imports_by_upload_and_by_path(site: Site) -> None:
    # 210 messages, 176 distinct Message-IDs
    response = _upload(site, MAIL / "notmuch_lkml.mbox.xz", "mbox")
    assert response.status_code == 202, response.text
    done = site.wait(response.json()["id"])
    assert done["status"] == "completed" and done["warning"] is None, done
    counters = done["counters"]
    assert (counters["read"], counters["written"], counters["duplicates"]) == (210, 176, 34)

    plain = lzma.decompress((MAIL / "notmuch_lkml.mbox.xz").read_bytes())
    (site.root / "lkml.mbox.zst").write_bytes(zstandard.ZstdCompressor().compress(plain))
    again = site.wait(site.start("lkml.mbox.zst", "mbox")["id"])
    assert (again["counters"]["read"], again["counters"]["duplicates"]) == (210, 210)

    # the real corpora's tarball (xz), uploaded, is unpacked and read as Maildir folders
    response = _upload(site, MAIL / "notmuch_corpora_default_lkml.tar.xz", "maildir")
    assert response.status_code == 202, response.text
    tree = site.wait(response.json()["id"])
    assert (tree["status"], tree["counters"]["read"]) == ("completed", 210 + 53), tree


def test_what_is_not_understood_is_refused_and_reading_nothing_is_a_warning(
    site: Site, tmp_path: Path
) -> None:
    mbox = archives.build_mbox(tmp_path).path
    lying = tmp_path / "mail.mbox.xz"
    lying.write_bytes(gzip.compress(mbox.read_bytes()))
    seven = site.root / "mail.7z"
    seven.write_bytes(b"7z\xbc\xaf\x27\x1c" + bytes(64))
    packed = io.BytesIO()
    with tarfile.open(fileobj=packed, mode="w:xz") as tarred:
        tarred.add(archives.build_maildir(tmp_path).path, arcname="mail")
    (site.root / "mail.tar.xz").write_bytes(packed.getvalue())
    refusals = [
        _upload(site, lying, "mbox"),
        _upload(site, seven, "mbox"),
        site.call("POST", BASE, json={"path": "mail.7z", "adapter": "mbox"}),
        site.call("POST", BASE, json={"path": "mail.tar.xz", "adapter": "maildir"}),
        site.call("POST", BASE, json={"path": "mail.tar.xz", "adapter": "mbox"}),
    ]
    for response in refusals:
        assert (response.status_code, response.json()["error"]["reason"]) == (
            422,
            "unsupported_archive",
        ), response.text
    assert site.call("GET", BASE).json() == []
    uploads = site.import_root / site.services.home_org_id / "uploads"
    assert [p for p in uploads.rglob("*") if p.is_file()] == []  # refused uploads are gone

    chats = archives.build_jsonl(site.root).path  # not empty, but no mailbox
    done = site.wait(site.start(chats.name, "mbox")["id"])
    assert (done["status"], done["counters"]["read"]) == ("completed", 0)
    assert done["warning"]["reason"] == "no_records_read"
    assert "mbox" in done["warning"]["detail"]
