"""The imports page: upload a mailbox, watch it finish, see its skipped record, refuse
oversized uploads and forged forms."""

import asyncio
import mailbox
import re
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from litestar.testing import TestClient

from adapters.inmemory.import_store import InMemoryImportStore
from adapters.sources.registry import source_adapters
from application.imports.import_jobs import ImportSetup
from domain.policy import Surface
from entrypoints.http.app import create_app
from tests.e2e.conftest import services_over_fakes
from tests.e2e.web.conftest import Site
from tests.support import archives

LIMIT = 300_000


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Site]:
    root = tmp_path / "imports"
    root.mkdir()
    setup = ImportSetup(
        store=InMemoryImportStore(), adapters=source_adapters(), root=root, max_upload_bytes=LIMIT
    )
    services = services_over_fakes(imports=setup)
    issued = asyncio.run(services.control.bootstrap(Surface.CLI))
    assert issued is not None
    with TestClient(app=create_app(services)) as client:
        yield Site(client, services, issued.key)


def _upload(site: Site, csrf: str, path: Path, adapter: str = "mbox") -> object:
    with path.open("rb") as archive:
        return site.client.post(
            "/memory/imports",
            data={"csrf": csrf, "adapter": adapter},
            files={"file": (path.name, archive, "application/mbox")},
            follow_redirects=False,
        )


def test_an_uploaded_mailbox_is_imported_and_its_skips_are_shown(
    site: Site, tmp_path: Path
) -> None:
    csrf = site.sign_in()
    listing = site.client.get("/memory/imports").text
    assert "At most 293 KiB" in listing
    mbox = archives.build_mbox(tmp_path).path
    answer = _upload(site, csrf, mbox)
    assert answer.status_code == 303, answer.text  # type: ignore[attr-defined]
    location = answer.headers["location"]  # type: ignore[attr-defined]
    deadline = time.monotonic() + 30
    page = site.client.get(location).text
    while 'http-equiv="refresh"' in page and time.monotonic() < deadline:
        time.sleep(0.1)
        page = site.client.get(location).text
    assert "completed" in page and 'http-equiv="refresh"' not in page
    assert "Pause" not in page and "Resume" not in page and "Cancel" not in page  # finished
    written = re.search(r'id="c-written">(\d+)<', page)
    assert written is not None and int(written.group(1)) == 4
    assert "Records not written" in page
    assert f"message 4 of {mbox.name}: not readable" in page  # where to find it, in words
    assert str(tmp_path) not in page  # the file's name, not where the server keeps it
    assert mbox.name in site.client.get("/memory/imports").text
    assert mbox.name in site.client.get("/memory").text or "mbox" in site.client.get("/memory").text


def test_an_upload_over_the_limit_or_without_a_token_is_refused(site: Site, tmp_path: Path) -> None:
    csrf = site.sign_in()
    big = tmp_path / "big.mbox"
    big.write_bytes(b"From x\n" + b"a" * (LIMIT + 10))
    assert _upload(site, csrf, big).status_code == 413  # type: ignore[attr-defined]
    small = archives.build_mbox(tmp_path).path
    assert _upload(site, "forged", small).status_code == 403  # type: ignore[attr-defined]
    assert "No imports yet." in site.client.get("/memory/imports").text


def test_pause_resume_cancel_are_forms_with_the_token(site: Site, tmp_path: Path) -> None:
    csrf = site.sign_in()
    answer = _upload(site, csrf, archives.build_mbox(tmp_path).path)
    location = answer.headers["location"]  # type: ignore[attr-defined]
    forged = site.client.post(f"{location}/cancel", data={"csrf": "x"}, follow_redirects=False)
    assert forged.status_code == 403
    cancelled = site.client.post(f"{location}/cancel", data={"csrf": csrf})
    assert cancelled.status_code == 200
    assert "cancel" in cancelled.text or "completed" in cancelled.text
    assert site.client.post(f"{location}/explode", data={"csrf": csrf}).status_code == 404


def test_an_import_that_read_nothing_says_so_on_its_page(site: Site, tmp_path: Path) -> None:
    csrf = site.sign_in()
    chats = archives.build_jsonl(tmp_path).path  # not a mailbox: the mbox reader finds none
    answer = _upload(site, csrf, chats, adapter="mbox")
    location = answer.headers["location"]  # type: ignore[attr-defined]
    deadline = time.monotonic() + 30
    page = site.client.get(location).text
    while 'http-equiv="refresh"' in page and time.monotonic() < deadline:
        time.sleep(0.1)
        page = site.client.get(location).text
    assert 'id="warning"' in page and "no record the mbox adapter reads" in page
    assert "completed with a warning" in site.client.get("/memory/imports").text


def test_a_mailbox_told_from_its_name_reads_as_mail_in_search_and_on_its_page(
    site: Site, tmp_path: Path
) -> None:
    csrf = site.sign_in()
    listing = site.client.get("/memory/imports").text
    assert '<option value="detect" selected>Detect it from' in listing
    answer = _upload(site, csrf, archives.build_mbox(tmp_path).path, adapter="")
    assert answer.status_code == 303, answer.text  # type: ignore[attr-defined]
    location = answer.headers["location"]  # type: ignore[attr-defined]
    deadline = time.monotonic() + 30
    page = site.client.get(location).text
    while 'http-equiv="refresh"' in page and time.monotonic() < deadline:
        time.sleep(0.1)
        page = site.client.get(location).text
    assert "completed</span> Mailbox (mbox) into" in page
    found = site.client.get("/memory/search", params={"q": "Budget plan 2"}).text
    assert ">mail.mbox (" in found  # the import filter names the file
    assert '<span class="kind">Mail</span>' in found and "Alice Example" in found
    hit = found.split(">Budget plan 2</a>")[1].split("</li>")[0]
    assert "<time>3 Mar 2024</time>" in hit  # the message's own date, not the import's
    source = re.search(r'<a class="open" href="(/memory/sources/[^"]+)">Budget plan 2</a>', found)
    assert source is not None
    shown = site.client.get(source.group(1)).text
    assert "<h1>Budget plan 2</h1>" in shown
    assert "<dd>Bob &lt;bob@example.org&gt;, carol@example.org</dd>" in shown
    assert "[&#39;" not in shown and "['" not in shown  # no Python list syntax
    assert "<dt>message id</dt>" in shown.split('class="ids"')[1]  # ids wait in the details


def test_a_file_whose_name_says_no_format_asks_for_one(site: Site, tmp_path: Path) -> None:
    csrf = site.sign_in()
    odd = tmp_path / "archive.bin"
    odd.write_bytes(b"Dear diary, nothing here says what I am.\n")
    answer = _upload(site, csrf, odd, adapter="detect")
    assert answer.status_code == 422  # type: ignore[attr-defined]
    assert "nor its content says its format: choose one" in answer.text  # type: ignore[attr-defined]
    uploads = list((tmp_path / "imports").glob("*/uploads/*/*"))
    assert uploads == []  # the refused upload is not kept


def _finished(site: Site, location: str) -> str:
    deadline = time.monotonic() + 30
    page = site.client.get(location).text
    while 'http-equiv="refresh"' in page and time.monotonic() < deadline:
        time.sleep(0.1)
        page = site.client.get(location).text
    return page


@pytest.mark.parametrize(
    ("build", "named", "told"),
    [
        (archives.build_mbox, "download", "Mailbox (mbox)"),
        (archives.build_jsonl, "chats.txt", "Chat transcripts (JSONL)"),
        (archives.build_chatgpt, "export.json", "ChatGPT export"),
    ],
)
def test_a_file_whose_name_says_nothing_is_told_by_its_content(
    site: Site, tmp_path: Path, build: object, named: str, told: str
) -> None:
    csrf = site.sign_in()
    sample = build(tmp_path).path  # type: ignore[operator]
    if sample.is_dir():
        sample = sample / "conversations.json"
    renamed = sample.rename(tmp_path / named)
    answer = _upload(site, csrf, renamed, adapter="detect")
    assert answer.status_code == 303, answer.text  # type: ignore[attr-defined]
    page = _finished(site, answer.headers["location"])  # type: ignore[attr-defined]
    assert f"completed</span> {told} into" in page
    assert "Done: read" in page and 'id="warning"' not in page


def test_a_zip_holding_one_mailbox_is_told_by_the_mailbox(site: Site, tmp_path: Path) -> None:
    csrf = site.sign_in()
    mbox = archives.build_mbox(tmp_path).path
    packed = tmp_path / "export.zip"
    with zipfile.ZipFile(packed, "w") as zipped:
        zipped.write(mbox, "Inbox")
    answer = _upload(site, csrf, packed, adapter="detect")
    assert answer.status_code == 303, answer.text  # type: ignore[attr-defined]
    page = _finished(site, answer.headers["location"])  # type: ignore[attr-defined]
    assert "completed</span> Mailbox (mbox) into" in page


def test_a_paused_import_shows_its_progress_as_a_bar_and_a_sentence(
    site: Site, tmp_path: Path
) -> None:
    csrf = site.sign_in()
    path = tmp_path / "big.mbox"
    box = mailbox.mbox(path)
    for n in range(2000):
        box.add(f"From: a{n}@x.org\nSubject: s{n}\nMessage-ID: <m{n}@x>\n\nbody {n}".encode())
    box.close()
    location = _upload(site, csrf, path).headers["location"]  # type: ignore[attr-defined]
    site.client.post(f"{location}/pause", data={"csrf": csrf})
    page = site.client.get(location).text
    assert "paused" in page  # it stopped early: 2000 messages take longer than a pause
    read = re.search(r'id="c-read">(\d+)<', page)
    assert read is not None and int(read.group(1)) < 2000
    assert f'<progress id="bar" max="2000" value="{read.group(1)}"' in page
    percent = round(100 * int(read.group(1)) / 2000)
    assert f"Read {read.group(1)} of about 2000 records ({percent}%)." in page
