"""The review, synthesize, access and status pages in real Chromium, against the real service.

One flow per page: accept a candidate after its preview; synthesize and
follow a citation to its source; preview what a person can see and open
the key revoke preview; the status page for the operator, and its 403 page
for anyone else. Then each of these pages is checked by axe-core (0 serious
or critical) and photographed at 1280 px and 400 px. Every person's
requests stay on 127.0.0.1, with no console error and no dialog.
"""

import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.e2e.browser.conftest import Server
from tests.e2e.browser.person import People, Person, signed_in_people

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def people(browser: Any, server: Server) -> Iterator[People]:
    """Each person signs in once for the module: the service allows 10 sign-ins a minute
    per client, and every person here is 127.0.0.1."""
    yield from signed_in_people(browser, server)


def _word() -> str:
    return "zq" + uuid.uuid4().hex[:8]


def _candidate(owner: Person, server: Server, text: str) -> tuple[str, str]:
    source_id = owner.remember(text)
    made = server.api("POST", "/api/memory/reflect", json={"source_ids": [source_id]})
    assert made["candidates"], made
    return source_id, str(made["candidates"][0]["id"])


def test_accept_a_candidate_after_its_preview(people: People, server: Server) -> None:
    owner = people("owner")
    word = _word()
    source_id, candidate_id = _candidate(
        owner, server, f"We decided to move the {word} ledger to SurrealDB <i>now</i>."
    )
    owner.open("/memory/review")
    accept = f"form[action='/memory/review/{candidate_id}/accept']"
    card = owner.page.locator(f"article.candidate:has({accept})")
    assert f"{word} ledger" in card.inner_text() and "<i>now</i>" in card.inner_text()
    assert card.locator(f"a[href='/memory/sources/{source_id}']").count() == 1
    card.locator("button:has-text('Accept')").click()
    owner.page.wait_for_url(f"**/memory/review/{candidate_id}/accept*")
    assert "What accepting writes" in owner.page.content()
    # the preview changed nothing
    pending = server.api("GET", "/api/memory/candidates", params={"state": "pending"})
    assert candidate_id in [c["id"] for c in pending["candidates"]]
    owner.page.click("button:has-text('Accept and keep')")
    owner.page.wait_for_url("**/memory/review?state=accepted&done=accepted")
    assert "Accepted" in owner.page.content()
    assert owner.page.locator(f"a[href='/memory/sources/{source_id}']").count() >= 1


def test_synthesize_then_follow_a_citation_to_its_source(people: People) -> None:
    owner = people("owner")
    word = _word()
    ids = {
        owner.remember(f"The {word} ledger keeps every entry in SurrealDB."),
        owner.remember(f"The {word} ledger replays its entries after a crash."),
    }
    owner.open("/memory/synthesize")
    owner.page.fill("#s-query", f"{word} ledger")
    owner.page.select_option("#s-type", "brief")
    owner.page.click("button:has-text('Plan the outline')")
    owner.page.wait_for_url("**/memory/synthesize/runs/**")
    run_url = owner.page.url
    owner.page.click("button:has-text('Write the draft')")
    owner.page.wait_for_selector("#draft")
    citation = owner.page.locator("a.cite").first
    cited = (citation.get_attribute("href") or "").rsplit("/", 1)[-1]
    assert cited in ids
    citation.click()
    owner.page.wait_for_url(f"**/memory/sources/{cited}")
    assert f"{word} ledger" in owner.page.inner_text("pre.content")
    owner.page.goto(run_url)
    owner.page.click("button:has-text('Verify the draft')")
    owner.page.wait_for_selector("#verification")
    owner.page.click("button:has-text('Remember the document')")
    owner.page.wait_for_url("**/memory/sources/**?done=remembered")
    artifact = urlsplit(owner.page.url).path.rsplit("/", 1)[-1]
    owner.open("/memory/synthesize")
    assert "remembered" in owner.page.content()
    owner.open(urlsplit(run_url).path)
    assert f"/memory/sources/{artifact}" in owner.page.content()


def test_access_preview_in_words_and_status_for_the_operator_only(people: People) -> None:
    owner = people("owner")
    owner.open("/memory/access")
    assert "bea (writer)" in owner.page.content()
    owner.page.select_option("#who", "courier")
    owner.page.click("button:has-text('Preview')")
    owner.page.wait_for_url("**/memory/access?who=courier**")
    assert "courier may not read this space" in owner.page.content()
    owner.page.fill("#a-name", "scout")
    owner.page.click("button:has-text('Make the agent')")
    owner.page.wait_for_selector("h1:has-text('A new key for scout')")
    key = owner.page.inner_text(".secret code")
    assert key.startswith("tsk_") and owner.serious_accessibility_findings() == []
    owner.screenshot("access-key-made")
    owner.open("/memory/access")
    assert key not in owner.page.content()  # shown once
    owner.page.locator("a:has-text('Revoke…')").first.click()
    owner.page.wait_for_url("**/revoke")
    assert "cannot be undone" in owner.page.content()
    owner.open("/memory/status")
    assert "Organisations" in owner.page.content()
    bea = people("bea")
    page = bea.open("/memory/status", expect_error=True)
    assert page.reason == "admin_required"
    assert "Organisations" not in bea.page.content()


def test_the_new_pages_pass_axe_and_are_photographed(people: People, server: Server) -> None:
    owner = people("owner")
    word = _word()
    _, candidate_id = _candidate(
        owner,
        server,
        f"Notes from Monday's standup.\nWe decided the {word} review is on Tuesday.\n"
        "Bea books the room; Ana brings the figures.",
    )
    run = server.api("POST", "/api/synthesize/plan", json={"query": f"{word} review"})
    pages = [
        ("review", "/memory/review"),
        ("review-accept", f"/memory/review/{candidate_id}/accept"),
        ("synthesize", "/memory/synthesize"),
        ("synthesis-run", f"/memory/synthesize/runs/{run['run_id']}"),
        ("access", "/memory/access?who=bea"),
        ("status", "/memory/status"),
    ]
    findings: dict[str, list[str]] = {}
    for name, path in pages:
        owner.open(path)
        findings[name] = owner.serious_accessibility_findings()
        owner.screenshot(name)
    # the draft and verification are the answers of their forms
    owner.open(pages[3][1])
    owner.page.click("button:has-text('Verify the draft')")
    owner.page.wait_for_selector("#verification")
    findings["synthesis-verified"] = owner.serious_accessibility_findings()
    owner.screenshot("synthesis-verified")
    owner.page.click("button:has-text('Show the section packs')")
    owner.page.wait_for_selector("#packs")
    owner.page.locator("details.pack-section summary").first.click()
    findings["synthesis-packs"] = owner.serious_accessibility_findings()
    owner.screenshot("synthesis-packs")
    owner.page.click("button:has-text('Verify the draft')")
    owner.page.click("button:has-text('Remember the document')")
    owner.page.wait_for_url("**/memory/sources/**?done=remembered")
    owner.open(pages[3][1])
    assert owner.page.is_visible("#document-text")  # a finished run shows its document
    findings["synthesis-remembered"] = owner.serious_accessibility_findings()
    owner.screenshot("synthesis-remembered")
    bea = people("bea")
    bea.open("/memory/status", expect_error=True)
    findings["status-403"] = bea.serious_accessibility_findings()
    bea.screenshot("status-403")
    assert all(not found for found in findings.values()), findings
