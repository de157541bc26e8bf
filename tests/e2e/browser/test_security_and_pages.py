"""Security in the browser, and every page checked by axe-core and photographed.

CSRF missing or wrong: 403 and nothing changed. A session cookie replayed
after sign-out leads to the sign-in page. Markup in memory text and in the
search box renders inert: no dialog, no script ran (``window.__xss`` stays
undefined). Every page: 0 serious or critical axe-core findings, and a
screenshot at 1280 px and at 400 px under tests/e2e/screenshots/.
"""

import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest

from tests.e2e.browser.conftest import Server
from tests.e2e.browser.person import Person, signed_in_owner

pytestmark = pytest.mark.slow

_PAYLOADS = (
    "<script>window.__xss = 1; alert('xss')</script>",
    '"><img src=x onerror="window.__xss = 2; alert(2)">',
    "<svg onload=\"window.__xss = 3\"></svg>",
    "javascript:alert(4)",
)


@pytest.fixture
def owner(browser: Any, server: Server) -> Iterator[Person]:
    yield from signed_in_owner(browser, server)


def test_a_form_without_or_with_a_wrong_csrf_token_is_403_and_changes_nothing(
    owner: Person,
) -> None:
    word = "zq" + uuid.uuid4().hex[:8]
    request = owner.context.request
    for fields in ({"content": f"{word} forged"}, {"content": f"{word} forged", "csrf": "bad"}):
        answer = request.post(owner.url("/memory/remember"), form=fields, max_redirects=0)
        assert answer.status == 403
    found = owner.search(word)
    # other tests' notes may still come back as weak matches (the owner is shared):
    # what matters is that no forged note was stored
    assert not [i for i in [*found.hits, *found.pack] if word in (i.text or "")]
    source_id = owner.remember(f"{word} kept")
    forged = request.post(
        owner.url(f"/memory/sources/{source_id}/preview"),
        form={"action": "hide", "csrf": "bad"},
        max_redirects=0,
    )
    assert forged.status == 403
    hits = [i.source_ids[0] for i in owner.search(word).hits]
    assert hits[:1] == [source_id]  # still there (not hidden), and still the best match


def test_the_session_cookie_is_worthless_after_sign_out(owner: Person) -> None:
    cookies = owner.context.cookies()
    session = [c for c in cookies if c["name"] == "tessera_session"]
    assert session and session[0]["httpOnly"] and session[0]["sameSite"] == "Strict"
    owner.sign_out()
    owner.context.add_cookies(session)
    owner.page.goto(owner.url("/memory"))
    assert owner.page.url == owner.url("/memory/sign-in")
    owner.sign_in()  # the fixture's checks run on a signed-in page again


def test_markup_in_memory_and_in_the_search_box_stays_inert(owner: Person) -> None:
    word = "zq" + uuid.uuid4().hex[:8]
    ids = [owner.remember(f"{word} {payload}") for payload in _PAYLOADS]
    owner.open("/memory")
    owner.search(word)
    for payload in _PAYLOADS:
        owner.page.goto(owner.url("/memory/search?q=" + quote(f"{word} {payload}")))
    for source_id, payload in zip(ids, _PAYLOADS, strict=True):
        owner.open(f"/memory/sources/{source_id}")
        assert payload in owner.page.inner_text("pre.content")  # shown as text, verbatim
    # check_clean (fixture) asserts: no dialog opened, window.__xss undefined, no console error
    assert owner.page.evaluate("window.__xss === undefined")
    assert not owner.dialogs


def _pages(owner: Person) -> list[tuple[str, str, bool]]:
    """(name, path, expect_error) of every page, with memory on it."""
    word = "zq" + uuid.uuid4().hex[:8]
    source_id = owner.remember(f"{word} the design review is on Tuesday with Ana and Bea")
    other = owner.remember(f"{word} the design review moved to Wednesday")
    return [
        ("home", "/memory", False),
        ("search", "/memory/search?q=" + quote(f"{word} design review"), False),
        ("source", f"/memory/sources/{source_id}", False),
        ("source-other", f"/memory/sources/{other}", False),
        ("not-found", "/memory/sources/no-such-source", True),
        ("imports", "/memory/imports", False),
    ]


def test_every_page_passes_axe_and_is_photographed(
    owner: Person, browser: Any, server: Server
) -> None:
    findings: dict[str, list[str]] = {}
    for name, path, expect_error in _pages(owner):
        owner.open(path, expect_error=expect_error)
        findings[name] = owner.serious_accessibility_findings()
        owner.screenshot(name)
    # the correction preview (a POST answer) and the sign-in page
    source = _pages(owner)[2][1]
    owner.open(source)
    owner.page.locator("form:has(input[name=action][value=hide]) button").click()
    owner.page.wait_for_url("**/preview")
    findings["preview"] = owner.serious_accessibility_findings()
    owner.screenshot("correction-preview")
    stranger = Person(browser, server, "owner")
    try:
        stranger.open("/memory/sign-in")
        findings["sign-in"] = stranger.serious_accessibility_findings()
        stranger.screenshot("sign-in")
        stranger.check_clean()
    finally:
        stranger.close()
    assert all(not found for found in findings.values()), findings
