"""Share preview and apply over HTTP, on the fakes and on embedded SurrealDB."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_http_trust import Site, ok, open_site, user_key


@pytest.fixture(params=["fakes", "surrealdb"])
def http(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Site]:
    with open_site(request.param, tmp_path) as site:
        yield site


def _team(site: Site, writes: bool) -> None:
    space = site.admin(
        "POST",
        "/api/admin/spaces",
        json={"scope": "team", "scope_key": "eng", "writes_enabled": writes, "owner": "ana"},
    )
    for name in ("ana", "bob"):
        site.admin(
            "POST",
            f"/api/admin/spaces/{space['space_id']}/members",
            json={"principal": name, "role": "writer"},
        )


def _reason(response: Any) -> str:
    reason: str = response.json()["error"]["reason"]
    return reason


def test_preview_then_apply_shares_a_note_with_the_team(http: Site) -> None:
    ana, bob = user_key(http, "ana"), user_key(http, "bob")
    _team(http, writes=True)
    note = {"content": "The release train leaves on Thursdays."}
    sid = ok(http.call(ana, "POST", "/api/memory/remember", json=note))["source_id"]
    body = {"kind": "source", "id": sid, "scope": "team", "scope_key": "eng"}
    preview = ok(http.call(ana, "POST", "/api/memory/share/preview", json=body))
    assert preview["allowed"] is True and preview["to_space"] == "team/eng"
    assert [r["name"] for r in preview["newly_visible"]] == ["bob"]
    assert preview["newly_visible_users"] == 1 and preview["records"]["sources"] == 1
    assert "release" not in str(preview)
    query = {"query": "release train"}
    assert ok(http.call(bob, "POST", "/api/search", json=query))["results"] == []
    missing = http.call(ana, "POST", "/api/memory/share", json=body)
    assert missing.status_code == 422 and _reason(missing) == "preview_required"
    applied = ok(
        http.call(
            ana,
            "POST",
            "/api/memory/share",
            json={**body, "preview_token": preview["preview_token"]},
        )
    )
    found = ok(http.call(bob, "POST", "/api/search", json=query))["results"]
    assert [h["source_id"] for h in found] == [applied["shared_id"]]
    # bob cannot preview sharing ana's private note: it does not exist for him
    hidden = http.call(bob, "POST", "/api/memory/share/preview", json=body)
    assert hidden.status_code == 404 and _reason(hidden) == "not_found"


def test_a_changed_source_or_a_closed_space_is_refused(http: Site) -> None:
    ana = user_key(http, "ana")
    user_key(http, "bob")
    _team(http, writes=False)
    sid = ok(http.call(ana, "POST", "/api/memory/remember", json={"content": "Standup at ten."}))[
        "source_id"
    ]
    body = {"kind": "source", "id": sid, "scope": "team", "scope_key": "eng"}
    preview = ok(http.call(ana, "POST", "/api/memory/share/preview", json=body))
    assert preview["allowed"] is False and preview["reason"] == "scope_disabled"
    assert preview["preview_token"] is None and preview["newly_visible"] == []
    refused = http.call(ana, "POST", "/api/memory/share", json={**body, "preview_token": "x"})
    assert refused.status_code == 403 and _reason(refused) == "scope_disabled"
    # open the space; a preview made before a correction is stale at apply
    spaces = http.admin("GET", "/api/admin/spaces")
    space_id = next(s["space_id"] for s in spaces if s["scope_key"] == "eng")
    http.admin("POST", f"/api/admin/spaces/{space_id}/writes", json={"enabled": True})
    token = ok(http.call(ana, "POST", "/api/memory/share/preview", json=body))["preview_token"]
    stale = {"action": "mark_stale"}
    fix = ok(http.call(ana, "POST", f"/api/memory/inspect/{sid}/corrections/preview", json=stale))
    ok(
        http.call(
            ana,
            "POST",
            f"/api/memory/inspect/{sid}/corrections",
            json={**stale, "preview_token": fix["preview_token"]},
        )
    )
    changed = http.call(ana, "POST", "/api/memory/share", json={**body, "preview_token": token})
    assert changed.status_code == 409 and _reason(changed) == "source_changed"
    bad = http.call(ana, "POST", "/api/memory/share/preview", json={**body, "scope_key": None})
    assert bad.status_code == 422 and _reason(bad) == "missing_scope_key"
    unknown = http.call(ana, "POST", "/api/memory/share/preview", json={**body, "x": 1})
    assert unknown.status_code == 400


def test_promotion_preview_counts_then_accept_with_its_token(http: Site) -> None:
    ana = user_key(http, "ana")
    user_key(http, "bob")
    _team(http, writes=True)
    note = {"content": "We decided to go with SurrealDB for the ledger."}
    sid = ok(http.call(ana, "POST", "/api/memory/remember", json=note))["source_id"]
    made = ok(http.call(ana, "POST", "/api/memory/reflect", json={"source_ids": [sid]}))
    cid = next(c["id"] for c in made["candidates"] if c["type"] == "decision")
    target = {"promote_to_scope": "team", "scope_key": "eng"}
    path = f"/api/memory/candidates/{cid}"
    preview = ok(http.call(ana, "POST", path + "/preview", json=target))
    assert preview["allowed"] is True and preview["target"] == "team/eng"
    assert preview["reach"] == {"visible": 1, "hidden": 0, "redacted": 0, "denied": 1}
    assert preview["sources"] == [{"source_id": sid, "readable_by": 1, "not_readable_by": 1}]
    assert "SurrealDB" not in str(preview)
    forged = http.call(ana, "POST", path + "/accept", json={**target, "preview_token": "v1.x"})
    assert forged.status_code == 422 and _reason(forged) == "preview_invalid"
    body = {**target, "preview_token": preview["preview_token"]}
    done = ok(http.call(ana, "POST", path + "/accept", json=body))
    assert done["candidate"]["state"] == "accepted"
    again = http.call(ana, "POST", path + "/preview", json=target)
    assert again.status_code == 409 and _reason(again) == "transition_not_allowed"


def test_derived_records_follow_a_shared_source_and_an_entity_keeps_its_sources(
    http: Site,
) -> None:
    ana, bob = user_key(http, "ana"), user_key(http, "bob")
    _team(http, writes=True)
    note = {"content": "We decided to go with SurrealDB for the ledger."}
    sid = ok(http.call(ana, "POST", "/api/memory/remember", json=note))["source_id"]
    made = ok(http.call(ana, "POST", "/api/memory/reflect", json={"source_ids": [sid]}))
    cid = next(c["id"] for c in made["candidates"] if c["type"] == "decision")
    accepted = ok(http.call(ana, "POST", f"/api/memory/candidates/{cid}/accept", json={}))
    entity_id = accepted["promoted"][0]["id"]
    query = {"query": "which database did we decide on for the ledger"}
    # the entity alone, shared into the team, still cites ana's private note: bob sees nothing
    entity = {"kind": "entity", "id": entity_id, "scope": "team", "scope_key": "eng"}
    preview = ok(http.call(ana, "POST", "/api/memory/share/preview", json=entity))
    assert preview["newly_visible"] == [] and preview["reach"]["denied"] == 1
    token = preview["preview_token"]
    ok(http.call(ana, "POST", "/api/memory/share", json={**entity, "preview_token": token}))
    seen = ok(http.call(bob, "POST", "/api/search", json=query))
    assert seen["derived"] == [] and seen["results"] == []
    # the source shared: its copy and the decision that cites only it reach bob
    source = {"kind": "source", "id": sid, "scope": "team", "scope_key": "eng"}
    preview = ok(http.call(ana, "POST", "/api/memory/share/preview", json=source))
    assert entity_id in preview["derived_following"] and preview["records"]["entities"] == 2
    token = preview["preview_token"]
    body = {**source, "preview_token": token}
    shared = ok(http.call(ana, "POST", "/api/memory/share", json=body))
    assert len(shared["derived_ids"]) == 2  # the decision and its entity-share copy follow
    seen = ok(http.call(bob, "POST", "/api/search", json=query))
    assert [h["source_id"] for h in seen["results"]] == [shared["shared_id"]]
    assert seen["derived"] and all(
        d["source_ids"] == [shared["shared_id"]] for d in seen["derived"]
    )
