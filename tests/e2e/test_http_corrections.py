"""Corrections over HTTP, on the fakes and on embedded SurrealDB: preview, apply, recall after."""

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_http_trust import Site, ok, open_site, user_key

SECRET = "the staging password is swordfish-77"


@pytest.fixture(params=["fakes", "surrealdb"])
def http(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Site]:
    with open_site(request.param, tmp_path) as site:
        yield site


def _search(site: Site, key: str, query: str) -> list[dict[str, Any]]:
    hits: list[dict[str, Any]] = ok(site.call(key, "POST", "/api/search", json={"query": query}))[
        "results"
    ]
    return hits


def test_preview_then_apply_hides_at_once(http: Site) -> None:
    ana = user_key(http, "ana")
    sid = ok(http.call(ana, "POST", "/api/memory/remember", json={"content": SECRET}))["source_id"]
    base = f"/api/memory/inspect/{sid}/corrections"
    body = {"action": "hide", "reason": "pasted by mistake"}
    preview = ok(http.call(ana, "POST", base + "/preview", json=body))
    assert preview["resulting_state"] == "hidden" and preview["reversible"] is True
    assert preview["impact"]["leaving"] == 1 and preview["audit_action"] == "correct:hide"
    assert [h["source_id"] for h in _search(http, ana, "staging password")] == [sid]

    missing = http.call(ana, "POST", base, json=body)
    assert missing.status_code == 422
    assert missing.json()["error"]["reason"] == "preview_required"
    forged = http.call(ana, "POST", base, json={**body, "preview_token": "v1.abc"})
    assert forged.json()["error"]["reason"] == "preview_invalid"

    applied = ok(
        http.call(ana, "POST", base, json={**body, "preview_token": preview["preview_token"]})
    )
    assert applied["state"] == "hidden" and applied["version"] == 2
    assert _search(http, ana, "staging password") == []
    again = http.call(ana, "POST", base, json={**body, "preview_token": preview["preview_token"]})
    assert again.status_code == 409
    assert again.json()["error"]["reason"] == "source_changed"
    assert "swordfish" not in again.text


def test_others_may_not_correct_and_bad_bodies_are_400(http: Site) -> None:
    ana, bob = user_key(http, "ana"), user_key(http, "bob")
    sid = ok(http.call(ana, "POST", "/api/memory/remember", json={"content": SECRET}))["source_id"]
    path = f"/api/memory/inspect/{sid}/corrections/preview"
    denied = http.call(bob, "POST", path, json={"action": "delete"})
    assert denied.status_code == 403
    assert "swordfish" not in denied.text
    assert http.call(ana, "POST", path, json={"action": "explode"}).status_code == 400
    no_target = http.call(ana, "POST", path, json={"action": "supersede"})
    assert no_target.status_code == 422
    unknown = http.call(
        ana, "POST", "/api/memory/inspect/nope/corrections/preview", json={"action": "hide"}
    )
    assert unknown.status_code == 404


def test_delete_leaves_a_tombstone_over_http(http: Site) -> None:
    ana = user_key(http, "ana")
    sid = ok(http.call(ana, "POST", "/api/memory/remember", json={"content": SECRET}))["source_id"]
    base = f"/api/memory/inspect/{sid}/corrections"
    body = {"action": "delete", "reason": "asked to forget"}
    token = ok(http.call(ana, "POST", base + "/preview", json=body))["preview_token"]
    ok(http.call(ana, "POST", base, json={**body, "preview_token": token}))
    assert _search(http, ana, "staging password swordfish") == []
    view = http.call(ana, "GET", f"/api/memory/sources/{sid}")
    assert "swordfish" not in view.text


def test_bulk_delete_previews_then_tombstones_only_what_is_mine(http: Site) -> None:
    ana, bob = user_key(http, "ana"), user_key(http, "bob")
    mine = [
        ok(http.call(ana, "POST", "/api/memory/remember", json={"content": f"ana note {n}"}))[
            "source_id"
        ]
        for n in range(3)
    ]
    theirs = ok(http.call(bob, "POST", "/api/memory/remember", json={"content": "bob note"}))
    selector = {"mine": True, "reason": "leaving"}
    preview = ok(http.call(ana, "POST", "/api/memory/delete/preview", json=selector))
    assert preview["sources"] == 3 and sorted(preview["source_ids"]) == sorted(mine)
    assert preview["reversible"] is False
    stale = preview["preview_token"]
    ok(http.call(ana, "POST", "/api/memory/remember", json={"content": "ana note 4"}))
    changed = http.call(
        ana, "POST", "/api/memory/delete", json={**selector, "preview_token": stale}
    )
    assert changed.status_code == 409 and changed.json()["error"]["reason"] == "source_changed"
    token = ok(http.call(ana, "POST", "/api/memory/delete/preview", json=selector))
    done = ok(
        http.call(
            ana,
            "POST",
            "/api/memory/delete",
            json={**selector, "preview_token": token["preview_token"]},
        )
    )
    assert done["deleted"] == 4
    assert _search(http, ana, "ana note") == []
    assert [h["source_id"] for h in _search(http, bob, "bob note")] == [theirs["source_id"]]
    bad = http.call(ana, "POST", "/api/memory/delete/preview", json={"mine": True, "scope": "team"})
    assert bad.status_code == 422


def test_export_streams_what_the_caller_may_read_without_vectors(http: Site) -> None:
    ana, bob = user_key(http, "ana"), user_key(http, "bob")
    kept = ok(http.call(ana, "POST", "/api/memory/remember", json={"content": "ana keeps this"}))
    gone = ok(http.call(ana, "POST", "/api/memory/remember", json={"content": SECRET}))
    ok(http.call(bob, "POST", "/api/memory/remember", json={"content": "bob private"}))
    base = f"/api/memory/inspect/{gone['source_id']}/corrections"
    body = {"action": "delete"}
    token = ok(http.call(ana, "POST", base + "/preview", json=body))["preview_token"]
    ok(http.call(ana, "POST", base, json={**body, "preview_token": token}))
    preview = ok(http.call(ana, "POST", "/api/memory/export/preview"))
    assert preview["sources"] == 2 and preview["with_text"] == 1
    response = http.call(ana, "POST", "/api/memory/export")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/x-ndjson")
    lines = [json.loads(line) for line in response.text.splitlines()]
    by_id = {line["source_id"]: line for line in lines}
    assert set(by_id) == {kept["source_id"], gone["source_id"]}
    assert by_id[kept["source_id"]]["content"] == "ana keeps this"
    tomb = by_id[gone["source_id"]]
    assert tomb["content"] is None and tomb["lifecycle"] == "deleted"
    assert tomb["corrections"][0]["action"] == "delete"
    assert "swordfish" not in response.text and "bob private" not in response.text
    assert all("vec" not in line and "vector" not in line for line in lines)


def test_export_reads_a_page_at_a_time(http: Site) -> None:
    ana = user_key(http, "ana")
    for n in range(3):
        ok(http.call(ana, "POST", "/api/memory/remember", json={"content": f"ana note {n}"}))
    whole = http.call(ana, "POST", "/api/memory/export").text.splitlines()
    ids = [json.loads(line)["source_id"] for line in whole]
    assert len(ids) == 3 and ids == sorted(ids)
    first = http.call(ana, "POST", "/api/memory/export", params={"limit": 2})
    assert [json.loads(line)["source_id"] for line in first.text.splitlines()] == ids[:2]
    rest = http.call(ana, "POST", "/api/memory/export", params={"after": ids[1], "limit": 2})
    assert [json.loads(line)["source_id"] for line in rest.text.splitlines()] == ids[2:]
    bad = http.call(ana, "POST", "/api/memory/export", params={"limit": 0})
    assert bad.status_code == 400 and bad.json()["error"]["reason"] == "invalid_request"
