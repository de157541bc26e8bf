"""Filters end to end: "mail from Alice in March about the budget" as one call.

A small mbox is built here with Python's ``mailbox`` (Alice's March message
about the budget among louder budget mail from others, later mail from Alice,
her lunch note, a reply to her), imported over HTTP as a user does, then
searched and packed with ``filters``, over the reference adapters and over
SurrealDB (each index backend). Bad filters are refused with stable reasons.
"""

import time
from collections.abc import Iterator
from email.message import EmailMessage
from email.utils import format_datetime
from mailbox import mbox
from pathlib import Path
from typing import Any

import pytest
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

ALICE = "Alice Smith <alice@example.com>"
THE_ONE = "Offsite budget: we can spend 4,000 euros on the venue."
#: a person's typical filter: mail from one sender in one month
MARCH_MAIL_FROM_ALICE = {
    "source_type": ["email"],
    "participants": {"from": "alice"},
    "occurred_at": {"from": "2024-03-01", "to": "2024-03-31"},
}


def _message(sender: str, to: str, day: str, subject: str, body: str, n: int) -> EmailMessage:
    from datetime import datetime

    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, to, subject
    msg["Date"] = format_datetime(datetime.fromisoformat(day))
    msg["Message-ID"] = f"<m{n}@example.com>"
    msg.set_content(body)
    return msg


def build_mailbox(root: Path) -> Path:
    path = root / "budget.mbox"
    box = mbox(path)
    mail = [
        (ALICE, "Bob <bob@corp.org>", "2024-03-10T09:00:00+01:00", "Offsite", THE_ONE),
        (
            "Bob <bob@corp.org>",
            ALICE,
            "2024-03-11T10:00:00+01:00",
            "Re: Offsite",
            "Budget budget budget: the budget is fine, Alice.",
        ),
        (
            ALICE,
            "Bob <bob@corp.org>",
            "2024-04-02T09:00:00+02:00",
            "Budget, again",
            "The final budget budget was signed in April.",
        ),
        (ALICE, "Bob <bob@corp.org>", "2024-03-15T12:00:00+01:00", "Lunch", "Lunch on Friday?"),
    ]
    mail += [
        (
            f"Dave {n} <dave{n}@corp.org>",
            ALICE,
            f"2024-03-{12 + n}T08:00:00+00:00",
            f"Budget {n}",
            "Budget budget budget budget, the March budget again.",
        )
        for n in range(8)
    ]
    box.lock()
    try:
        for n, (sender, to, day, subject, body) in enumerate(mail):
            box.add(_message(sender, to, day, subject, body, n))
        box.flush()
    finally:
        box.unlock()
        box.close()
    return path


def _fakes(root: Path) -> Services:
    setup = ImportSetup(
        store=InMemoryImportStore(),
        adapters=source_adapters(),
        root=root,
        max_upload_bytes=1_000_000,
    )
    return services_over_fakes(imports=setup)


def _surreal(data_dir: Path, index: str) -> Services:
    env = {"TESSERA_DATA_DIR": str(data_dir), "TESSERA_DB_URL": "mem://", "TESSERA_INDEX": index}
    container = build_container(load_settings(env))
    container.embedder.override(HashingEmbedder())
    return container.services()


class Site:
    def __init__(self, client: TestClient[Any], root: Path, import_id: str) -> None:
        self.client, self.root, self.import_id = client, root, import_id

    def post(self, path: str, body: dict[str, Any]) -> Any:
        return self.client.post(path, json=body)

    def search(self, query: str, filters: dict[str, Any] | None, limit: int = 10) -> list[Any]:
        body: dict[str, Any] = {"query": query, "limit": limit}
        if filters is not None:
            body["filters"] = filters
        response = self.post("/api/search", body)
        assert response.status_code == 200, response.text
        results: list[Any] = response.json()["results"]
        return results


@pytest.fixture(params=["fakes", "surreal+inprocess", "surreal+surreal"], scope="module")
def site(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Site]:
    tmp = tmp_path_factory.mktemp(request.param)
    root = tmp / "imports"
    root.mkdir(parents=True)
    if request.param == "fakes":
        services = _fakes(root)
    else:
        services = _surreal(tmp, request.param.removeprefix("surreal+"))
    assert services.imports is not None
    build_mailbox(services.imports.area.files(services.home_org_id))
    with TestClient(app=create_app(services)) as client:
        assert services.bootstrap_key is not None
        client.headers["authorization"] = f"Bearer {services.bootstrap_key.key}"
        started = client.post(
            "/api/sources/imports", json={"path": "budget.mbox", "adapter": "mbox"}
        )
        assert started.status_code == 202, started.text
        deadline = time.monotonic() + 60
        while True:
            record = client.get(f"/api/sources/imports/{started.json()['id']}").json()
            if record["status"] not in {"pending", "running"} or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert record["status"] == "completed" and record["counters"]["written"] == 12, record
        note = client.post(
            "/api/memory/remember",
            json={
                "content": "Alice said the budget is 4,000 euros",
                "occurred_at": "2024-03-10T09:00:00+00:00",
                "metadata": {"from": ALICE},
            },
        )
        assert note.status_code == 201
        yield Site(client, root, record["id"])


def test_mail_from_alice_in_march_about_the_budget_is_one_call(site: Site) -> None:
    unfiltered = site.search("budget", None, limit=3)
    assert all(THE_ONE not in hit["text"] for hit in unfiltered)  # louder budget mail wins
    found = site.search("budget", MARCH_MAIL_FROM_ALICE, limit=1)
    assert len(found) == 1 and THE_ONE in found[0]["text"]
    # deeper, the only other mail from Alice in March (lunch) joins on meaning, below it
    found = site.search("budget", MARCH_MAIL_FROM_ALICE, limit=5)
    assert THE_ONE in found[0]["text"]
    assert [hit["text"].split("\n")[0] for hit in found[1:]] in ([], ["Lunch"])
    pack = site.post(
        "/api/context/pack",
        {"query": "what is the budget", "token_budget": 500, "filters": MARCH_MAIL_FROM_ALICE},
    )
    assert pack.status_code == 200, pack.text
    items = pack.json()["items"]
    assert items and THE_ONE in items[0]["text"]
    assert all(THE_ONE in item["text"] or "Lunch" in item["text"] for item in items)


def test_each_part_narrows_on_its_own(site: Site) -> None:
    from_alice = site.search("budget", {"participants": {"from": "Alice@Example.com"}}, 50)
    # every matching chunk comes back (the vector list ranks them all): Offsite, April,
    # Lunch, and the note that records her as from
    assert len(from_alice) == 4
    to_alice = site.search("budget", {"participants": {"to": "alice smith"}}, 50)
    assert len(to_alice) == 9  # Bob's reply and Dave's eight
    april = site.search("budget", {"occurred_at": {"from": "2024-04-01T00:00:00Z"}}, 50)
    assert len(april) == 1 and "April" in april[0]["text"]
    emails = site.search("budget", {"source_type": ["email"]}, 50)
    notes = site.search("budget", {"source_type": ["note"]}, 50)
    assert len(emails) == 12 and len(notes) == 1
    imported = site.search("budget", {"import_id": site.import_id}, 50)
    assert {hit["source_id"] for hit in imported} == {hit["source_id"] for hit in emails}
    labelled = site.search("lunch", {"metadata": {"message_id": "m3@example.com"}}, 50)
    assert len(labelled) == 1 and "Lunch" in labelled[0]["text"]
    assert site.search("budget", {"scope": "project", "scope_key": "apollo"}, 50) == []
    assert site.search("budget", {"participants": {"from": "carol"}}, 50) == []


@pytest.mark.parametrize(
    ("filters", "status", "reason"),
    [
        ({"sender": "alice"}, 400, "unknown_field"),
        ({"participants": {"bcc": "alice"}}, 400, "unknown_field"),
        ({"occurred_at": {"from": "March 2024"}}, 422, "invalid_filter"),
        ({"occurred_at": {"from": "2024-02-30"}}, 422, "invalid_filter"),
        ({"occurred_at": {"to": "2024-03-01T10:00:00"}}, 422, "invalid_filter"),
        ({"occurred_at": {"from": "2024-04-01", "to": "2024-03-01"}}, 422, "invalid_filter"),
        ({"metadata": {f"k{n}": n for n in range(17)}}, 422, "invalid_filter"),
        ({"source_type": []}, 422, "invalid_filter"),
        ({"source_type": ["fax"]}, 400, "invalid_request"),
        ({"scope_key": "apollo"}, 422, "invalid_filter"),
        ({"scope": "organization", "scope_key": "x"}, 422, "invalid_filter"),
        ({"participants": {"from": "x" * 5000}}, 422, "invalid_filter"),
        ({"metadata": {"k": {"nested": 1}}}, 400, "invalid_request"),
    ],
)
def test_bad_filters_are_refused_with_a_stable_reason(
    site: Site, filters: dict[str, Any], status: int, reason: str
) -> None:
    for path, body in (
        ("/api/search", {"query": "budget"}),
        ("/api/context/pack", {"query": "budget"}),
    ):
        response = site.post(path, {**body, "filters": filters})
        assert response.status_code == status, response.text
        error = response.json()["error"]
        assert error["reason"] == reason
        assert len(error["detail"]) <= 400 and "x" * 300 not in error["detail"]
