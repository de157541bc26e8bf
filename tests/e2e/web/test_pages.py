"""The memory workspace's sessions, forms and trust rules, without a browser (fast).

The browser suite (tests/e2e/browser) drives the same flows in Chromium; these
pin the server's side: cookies, headers, CSRF, escaping and what each page holds.
"""

import re
from typing import Any

from domain.reasons import ReasonCode
from entrypoints.web.security import PAGE_HEADERS
from tests.e2e.web.conftest import Site, csrf_of


def test_pages_redirect_to_sign_in_without_a_session(site: Site) -> None:
    for path in ("/memory", "/memory/search?q=x", "/memory/sources/abc"):
        answer = site.client.get(path, follow_redirects=False)
        assert answer.status_code == 303
        assert answer.headers["location"] == "/memory/sign-in"


def test_sign_in_sets_a_strict_http_only_cookie_and_the_key_never_returns(site: Site) -> None:
    answer = site.client.post(
        "/memory/sign-in", data={"api_key": site.owner_key}, follow_redirects=False
    )
    cookie = answer.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "path=/memory" in cookie
    assert "secure" not in cookie  # plain http on loopback; over TLS it is set
    assert site.owner_key.split("_")[-1] not in cookie
    csrf = csrf_of(site.client.get("/memory").text)
    for path in ("/memory", "/memory/search?q=anything", "/memory/static/workspace.js"):
        assert site.owner_key not in site.client.get(path).text
    assert csrf


def test_every_page_carries_the_security_headers(site: Site) -> None:
    site.sign_in()
    source_id = site.remember(csrf_of(site.client.get("/memory").text), "header check")
    for path in (
        "/memory/sign-in",
        "/memory",
        "/memory/search?q=header",
        f"/memory/sources/{source_id}",
        "/memory/sources/no-such-source",
        "/memory/static/workspace.css",
    ):
        answer = site.client.get(path)
        for name, value in PAGE_HEADERS.items():
            assert answer.headers.get(name) == value, (path, name)
    assert "frame-ancestors 'none'" in PAGE_HEADERS["content-security-policy"]
    assert "'unsafe-inline'" not in PAGE_HEADERS["content-security-policy"]


def test_a_wrong_key_is_refused_and_sign_in_is_rate_limited(site: Site) -> None:
    answer = site.client.post("/memory/sign-in", data={"api_key": "tsk_nope_nope"})
    assert answer.status_code == 401
    assert "tsk_nope_nope" not in answer.text
    statuses = [
        site.client.post("/memory/sign-in", data={"api_key": "wrong"}).status_code
        for _ in range(12)
    ]
    assert statuses[-1] == 429
    # the limit holds for a right key too, until the window passes
    right = site.client.post("/memory/sign-in", data={"api_key": site.owner_key})
    assert right.status_code == 429


def test_csrf_missing_or_wrong_is_403_and_nothing_is_remembered(site: Site) -> None:
    csrf = site.sign_in()
    before = site.client.get("/memory").text
    for data in ({"content": "csrf canary one"}, {"content": "csrf canary two", "csrf": "x"}):
        answer = site.client.post("/memory/remember", data=data, follow_redirects=False)
        assert answer.status_code == 403
    found = site.client.get("/memory/search", params={"q": "csrf canary"}).text
    assert "Nothing you may read matches" in found

    def captures(page: str) -> str:
        return page.split('id="captures"')[1].split("</section>")[0]

    assert captures(site.client.get("/memory").text) == captures(before)
    source_id = site.remember(csrf, "hide me with a forged form")
    forged = site.client.post(
        f"/memory/sources/{source_id}/preview", data={"action": "hide", "csrf": "forged"}
    )
    assert forged.status_code == 403
    assert (
        site.client.post(
            "/memory/sign-out", data={"csrf": "forged"}, follow_redirects=False
        ).status_code
        == 403
    )


def test_a_cross_origin_post_is_refused(site: Site) -> None:
    answer = site.client.post(
        "/memory/sign-in",
        data={"api_key": site.owner_key},
        headers={"origin": "https://evil.example"},
        follow_redirects=False,
    )
    assert answer.status_code == 403


def test_after_sign_out_the_old_cookie_leads_to_sign_in(site: Site) -> None:
    csrf = site.sign_in()
    cookie = site.client.cookies.get("tessera_session")
    assert cookie
    out = site.client.post("/memory/sign-out", data={"csrf": csrf}, follow_redirects=False)
    assert out.status_code == 303
    site.client.cookies.set("tessera_session", cookie, path="/memory")
    again = site.client.get("/memory", follow_redirects=False)
    assert again.status_code == 303 and again.headers["location"] == "/memory/sign-in"


def test_memory_text_is_escaped_everywhere_it_shows(site: Site) -> None:
    csrf = site.sign_in()
    payload = '"><img src=x onerror=alert(1)><script>alert(2)</script> zebra'
    source_id = site.remember(csrf, payload)
    pages = [
        site.client.get("/memory").text,
        site.client.get(f"/memory/sources/{source_id}").text,
        site.client.get("/memory/search", params={"q": payload}).text,
    ]
    for html in pages:
        assert "<script>alert" not in html and "<img src=x" not in html
        assert "&lt;script&gt;alert(2)" in html


def test_hide_through_preview_then_apply_leaves_search_and_pack(site: Site) -> None:
    csrf = site.sign_in()
    source_id = site.remember(csrf, "The quarterly budget review moved to Thursday")
    found = site.client.get("/memory/search", params={"q": "quarterly budget review"}).text
    assert found.count(f"/memory/sources/{source_id}") >= 2  # a hit and a pack item
    preview = site.client.post(
        f"/memory/sources/{source_id}/preview", data={"csrf": csrf, "action": "hide"}
    )
    assert preview.status_code == 200 and "Can be undone" in preview.text
    token = re.search(r'name="preview_token" value="([^"]+)"', preview.text)
    assert token is not None
    # the preview changed nothing
    assert (
        "quarterly budget"
        in site.client.get("/memory/search", params={"q": "quarterly budget review"}).text.split(
            'id="hits"', 1
        )[1]
    )
    applied = site.client.post(
        f"/memory/sources/{source_id}/apply",
        data={"csrf": csrf, "action": "hide", "preview_token": token.group(1)},
        follow_redirects=False,
    )
    assert applied.status_code == 303
    after = site.client.get("/memory/search", params={"q": "quarterly budget review"}).text
    assert f"/memory/sources/{source_id}" not in after
    assert "Nothing you may read matches" in after


def test_a_redaction_preview_says_how_much_text_goes_and_how_much_stays(site: Site) -> None:
    csrf = site.sign_in()
    text = "the locker combination is 19-27-3"
    source_id = site.remember(csrf, text)
    form = {"csrf": csrf, "action": "redact", "summary": "a locker code"}
    preview = site.client.post(f"/memory/sources/{source_id}/preview", data=form)
    assert preview.status_code == 200 and "Cannot be undone" in preview.text
    assert f"{len(text)} character(s) removed for good, 0 kept." in preview.text
    # the preview shows the text about to go, and the summary standing in after
    after = preview.text.split('id="after"', 1)[1].split("</section>")[0]
    assert "19-27-3" in preview.text.split('id="after"', 1)[0]
    assert "19-27-3" not in after and "a locker code" in after


def test_a_stale_preview_answers_409_and_offers_a_fresh_one(site: Site) -> None:
    csrf = site.sign_in()
    source_id = site.remember(csrf, "stale preview subject")
    first = site.client.post(
        f"/memory/sources/{source_id}/preview", data={"csrf": csrf, "action": "hide"}
    )
    token = re.search(r'name="preview_token" value="([^"]+)"', first.text)
    assert token is not None
    stale_mark = site.client.post(
        f"/memory/sources/{source_id}/preview", data={"csrf": csrf, "action": "mark_stale"}
    )
    mark_token = re.search(r'name="preview_token" value="([^"]+)"', stale_mark.text)
    assert mark_token is not None
    site.client.post(
        f"/memory/sources/{source_id}/apply",
        data={"csrf": csrf, "action": "mark_stale", "preview_token": mark_token.group(1)},
    )
    late = site.client.post(
        f"/memory/sources/{source_id}/apply",
        data={"csrf": csrf, "action": "hide", "preview_token": token.group(1)},
    )
    assert late.status_code == 409
    assert ReasonCode.SOURCE_CHANGED.value in late.text and "Preview again" in late.text


def test_another_users_private_source_is_not_found_and_leaks_nothing(site: Site) -> None:
    csrf = site.sign_in()
    source_id = site.remember(csrf, "owner private canary 7731")
    key = _second_user_key(site)
    site.client.cookies.clear()
    site.sign_in(key)
    answer = site.client.get(f"/memory/sources/{source_id}")
    assert answer.status_code == 403 or answer.status_code == 404
    assert "canary 7731" not in answer.text
    assert "canary 7731" not in site.client.get("/memory/search", params={"q": "canary"}).text
    assert "canary 7731" not in site.client.get("/memory").text


def _second_user_key(site: Site) -> str:
    owner = {"authorization": f"Bearer {site.owner_key}"}
    made = site.client.post("/api/admin/principals", json={"name": "bea"}, headers=owner)
    assert made.status_code == 201, made.text
    key = site.client.post("/api/admin/keys", json={"principal": "bea"}, headers=owner)
    assert key.status_code == 201, key.text
    return str(key.json()["key"])


def _is_error_page_with_headers(answer: Any, status: int) -> str:
    assert answer.status_code == status, answer.text[:300]
    assert answer.headers["content-type"].startswith("text/html")
    for name, value in PAGE_HEADERS.items():
        assert answer.headers.get(name) == value, name
    return str(answer.text)


def test_an_address_that_names_no_page_is_a_page_with_the_security_headers(site: Site) -> None:
    for path in ("/memory/no-such-page", "/memory/sources/abc/no-such-part"):
        html = _is_error_page_with_headers(site.client.get(path), 404)
        assert "No such page" in html and 'href="/memory/search"' not in html
    refused = site.client.request("TRACE", "/memory/search")
    html = _is_error_page_with_headers(refused, 405)
    assert refused.headers["allow"] == "GET, OPTIONS"
    assert site.client.options("/memory/search").headers["allow"] == "GET, OPTIONS"


def test_error_pages_keep_the_navigation_for_a_signed_in_person(site: Site) -> None:
    site.sign_in()
    for path, status in (
        ("/memory/no-such-page", 404),  # fails while routing
        ("/memory/sources/no-such-source", 404),  # fails in the page
    ):
        html = _is_error_page_with_headers(site.client.get(path), status)
        assert 'href="/memory/search"' in html and "Sign out" in html, path
        assert 'name="csrf" value="' in html


def test_home_dates_a_capture_by_when_it_happened_where_the_source_says(site: Site) -> None:
    csrf = site.sign_in()
    answer = site.client.post(
        "/api/memory/remember",
        json={
            "content": "Subject: Harbour survey\n\nThe survey boat leaves on Monday.",
            "source_type": "email",
            "occurred_at": "2019-03-04T09:00:00+00:00",
        },
        headers={"Authorization": f"Bearer {site.owner_key}"},
    )
    assert answer.status_code == 201, answer.text
    site.remember(csrf, "A note written today")
    captures = site.client.get("/memory").text.split('id="captures"')[1].split("</section>")[0]
    mail = captures.split("Harbour survey", 1)[1].split("</li>", 1)[0]
    assert "4 Mar 2019" in mail
