"""Revoking with a preview, and home's scope switcher, in real Chromium.

A member (cai, not an admin) ends the delegation she granted her agent from
the access page: preview in words, then revoke; her agent's next search no
longer finds her private note. She previews revoking her agent's key while an
admin revokes it meanwhile: her revoke answers 409 with the reason and the
fresh preview, and the agent is signed out. The owner narrows home to one
project and carries it into search. Each changed page passes axe-core (0
serious or critical) and is photographed at 1280 and 400 px; every request
stays on 127.0.0.1, with no console error and no dialog.

Named to run last in the package: its notes stay in the shared server, and the
security module asserts that a fresh word finds nothing.
"""

import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest

from tests.e2e.browser.conftest import Server
from tests.e2e.browser.person import People, Person, signed_in_owner, signed_in_people

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def people(browser: Any, server: Server) -> Iterator[People]:
    """cai (a member) and her agent with a live delegation, made once; each signs in once."""
    if "cai" not in server.keys:
        server.api("POST", "/api/admin/principals", json={"name": "cai"})
        cai = server.api("POST", "/api/admin/keys", json={"principal": "cai"})["key"]
        server.keys["cai"] = cai
        # cai creates her agent, delegates to it and mints its key herself
        agent = {"name": "cai-courier", "acting_for": "cai", "delegation_days": 30}
        server.api("POST", "/api/admin/principals", cai, json=agent)
        minted = server.api("POST", "/api/admin/keys", cai, json={"principal": "cai-courier"})
        server.keys["cai-courier"] = minted["key"]
    yield from signed_in_people(browser, server)


def _word() -> str:
    # not the other modules' "zq" words: theirs assert a fresh word finds nothing
    return "qv" + uuid.uuid4().hex[:8]


def _hits(person: Person, word: str) -> int:
    return len(person.search(word).hits)


def test_revoke_a_delegation_then_a_stale_key_preview(people: People, server: Server) -> None:
    cai, courier = people("cai"), people("cai-courier")
    word = _word()
    cai.remember(f"cai's private {word} locker code")
    assert _hits(courier, word) == 1  # the delegation lets her agent read it
    findings: dict[str, list[str]] = {}

    cai.open("/memory/access")
    assert "cai-courier acts for you" in cai.page.content()
    findings["access-own"] = cai.serious_accessibility_findings()
    cai.screenshot("access-own")
    cai.page.click("a:has-text('Revoke…'):has-text('the delegation to cai-courier')")
    cai.page.wait_for_url("**/memory/access/delegations/*/revoke")
    assert "cai-courier stops acting for cai" in cai.page.content()
    findings["revoke-delegation-preview"] = cai.serious_accessibility_findings()
    cai.screenshot("revoke-delegation-preview")
    cai.page.click("button:has-text('Revoke this delegation')")
    cai.page.wait_for_url("**/memory/access?done=delegation-revoked")
    assert "The delegation is revoked" in cai.page.content()
    assert _hits(courier, word) == 0  # gone at once for the agent

    # the agent's key: cai previews; an admin revokes it meanwhile; her preview is stale
    courier_key = server.keys["cai-courier"].split("_")[1]
    cai.open(f"/memory/access/keys/{courier_key}/revoke")
    assert "cai-courier" in cai.page.content()
    path = f"/api/access/keys/{courier_key}"
    preview = server.api("POST", f"{path}/revoke-preview")
    server.api("POST", f"{path}/revoke", json={"token": preview["token"]})
    cai.expected_errors.add(cai.url(f"/memory/access/keys/{courier_key}/revoke"))
    with cai.page.expect_response(lambda r: r.request.method == "POST") as answer:
        cai.page.click("button:has-text('Revoke this key')")
    assert answer.value.status == 409
    content = cai.page.content()
    assert "preview_stale" in content and "Nothing was revoked" in content
    assert "Already revoked" in content  # the fresh preview, in its place
    findings["revoke-key-stale"] = cai.serious_accessibility_findings()
    cai.screenshot("revoke-key-stale")
    courier.page.goto(courier.url("/memory"))
    courier.page.wait_for_url("**/memory/sign-in")  # the revoked key signs the agent out
    assert all(not found for found in findings.values()), findings


@pytest.fixture(scope="module")
def owner(browser: Any, server: Server) -> Iterator[Person]:
    yield from signed_in_owner(browser, server)


def test_home_narrowed_to_a_project_and_the_search_it_carries(owner: Person) -> None:
    word = _word()
    in_project = owner.remember(f"apollo {word} launch checklist", "project:apollo")
    in_private = owner.remember(f"private {word} lunch plan")
    owner.open("/memory")
    assert in_project in owner.page.content() and in_private in owner.page.content()
    owner.page.select_option("#home-space", "project:apollo")
    owner.page.click("button:has-text('Show')")
    owner.page.wait_for_url("**/memory?space=project%3Aapollo")
    home = owner.page.content()
    assert in_project in home and in_private not in home
    findings = {"home-scoped": owner.serious_accessibility_findings()}
    owner.screenshot("home-scoped")
    owner.page.fill("#home-q", word)
    owner.page.click("form[role=search] button:has-text('Search')")
    owner.page.wait_for_url(f"**/memory/search?q={quote(word)}&space=project%3Aapollo")
    found = owner.page.content()
    assert in_project in found and in_private not in found
    assert owner.page.locator("#f-space").input_value() == "project:apollo"
    summary = owner.page.locator("details.why summary").first
    assert summary.inner_text().startswith("Why here:") and "(rank" not in summary.inner_text()
    summary.click()  # the full reasons open beneath the short line
    assert "(rank" in owner.page.locator("details.why").first.inner_text()
    findings["search-why"] = owner.serious_accessibility_findings()
    owner.screenshot("search-why")
    assert all(not f for f in findings.values()), findings
