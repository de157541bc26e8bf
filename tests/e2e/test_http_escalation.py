"""An organisation admin and a space writer, acting as attackers over HTTP.

The world: the install's owner; in the same organisation a member ``bob``
and an organisation admin ``adam``; a project space owned by the owner with
bob as a writer. Adam tries every way to become the owner or read the
owner's private memory; bob tries to correct what he cannot read.
"""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_http_trust import Site, ok, open_site

CANARY = "owner canary marmoset-4471 in the private notes"


@pytest.fixture(params=["fakes", "surrealdb"])
def site(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Site]:
    with open_site(request.param, tmp_path) as opened:
        yield opened


def _key(site: Site, name: str, role: str = "member") -> str:
    site.admin("POST", "/api/admin/principals", json={"name": name, "org_role": role})
    key: str = site.admin("POST", "/api/admin/keys", json={"principal": name})["key"]
    return key


def _refused(response: Any, reason: str) -> None:
    assert response.status_code == 403, response.text
    assert response.json()["error"]["reason"] == reason
    assert "marmoset" not in response.text


def _finds_canary(site: Site, key: str) -> bool:
    hits = ok(site.call(key, "POST", "/api/search", json={"query": "marmoset canary"}))
    return any("marmoset" in h["text"] for h in hits["results"])


def test_an_org_admin_cannot_become_the_owner(site: Site) -> None:
    ok(site.call(site.owner_key, "POST", "/api/memory/remember", json={"content": CANARY}))
    adam = _key(site, "adam", "admin")

    # a key for the owner, or for any principal who already holds one
    _refused(
        site.call(adam, "POST", "/api/admin/keys", json={"principal": "owner"}), "key_not_yours"
    )
    # an agent acting for the owner with a delegation: refused, and nothing is left behind
    agent = {"name": "mole", "acting_for": "owner", "delegation_days": 30}
    _refused(site.call(adam, "POST", "/api/admin/principals", json=agent), "delegation_not_yours")
    names = {p["name"] for p in site.admin("GET", "/api/admin/principals")}
    assert "mole" not in names
    # without a delegation the agent may be created, but its key is its user's to mint
    ok(site.call(adam, "POST", "/api/admin/principals", json={**agent, "delegation_days": 0}))
    _refused(
        site.call(adam, "POST", "/api/admin/keys", json={"principal": "mole"}), "key_not_yours"
    )
    # another owner, or himself the owner of a space
    owner = {"name": "twin", "org_role": "owner"}
    _refused(site.call(adam, "POST", "/api/admin/principals", json=owner), "org_owner_required")
    space = site.admin("POST", "/api/admin/spaces", json={"scope": "project", "scope_key": "x"})
    member = {"principal": "adam", "role": "owner"}
    path = f"/api/admin/spaces/{space['space_id']}/members"
    _refused(site.call(adam, "POST", path, json=member), "space_owner_required")
    demote = {"principal": "owner", "role": "reader"}
    _refused(site.call(adam, "POST", path, json=demote), "space_owner_required")
    # the owner's key
    owner_key_id = site.owner_key.split("_")[1]
    revoke = f"/api/admin/keys/{owner_key_id}/revoke"
    _refused(site.call(adam, "POST", revoke), "org_owner_required")
    assert site.call(site.owner_key, "POST", "/api/search", json={"query": "x"}).status_code == 200
    # what adam may still do: onboard a newcomer with a first key, administer members
    newcomer = _key(site, "nina")
    ok(site.call(adam, "POST", "/api/admin/principals", json={"name": "finn"}))
    finn = ok(site.call(adam, "POST", "/api/admin/keys", json={"principal": "finn"}))["key"]
    ok(site.call(adam, "POST", path, json={"principal": "finn", "role": "writer"}))
    assert not any(_finds_canary(site, k) for k in (adam, newcomer, finn))
    # every refusal left a receipt with its reason, and no text
    receipts = site.admin("GET", "/api/audit")
    refused = {
        r["reason"] for r in receipts if not r["allowed"] and r["action"].startswith("admin.")
    }
    assert {"key_not_yours", "delegation_not_yours", "org_owner_required"} <= refused
    assert {"space_owner_required"} <= refused
    assert "marmoset" not in str(receipts)


def test_a_member_runs_her_own_agents(site: Site) -> None:
    bob = _key(site, "bob")
    ok(site.call(bob, "POST", "/api/memory/remember", json={"content": "bob's locker is 42"}))
    agent = {"name": "bobbot", "acting_for": "bob", "delegation_days": 7}
    ok(site.call(bob, "POST", "/api/admin/principals", json=agent))
    bot = ok(site.call(bob, "POST", "/api/admin/keys", json={"principal": "bobbot"}))["key"]
    hits = ok(site.call(bot, "POST", "/api/search", json={"query": "locker"}))["results"]
    assert [h["text"] for h in hits] == ["bob's locker is 42"]
    # but not for someone else, and no keys for others
    other = {"name": "evil", "acting_for": "owner"}
    _refused(site.call(bob, "POST", "/api/admin/principals", json=other), "admin_required")
    _refused(
        site.call(bob, "POST", "/api/admin/keys", json={"principal": "owner"}), "key_not_yours"
    )


def test_a_space_creator_owns_it_and_can_write_at_once(site: Site) -> None:
    adam = _key(site, "adam", "admin")
    body = {"scope": "project", "scope_key": "apollo", "writes_enabled": True}
    ok(site.call(adam, "POST", "/api/admin/spaces", json=body))
    note = {"content": "apollo kickoff on Monday", "scope": "project", "scope_key": "apollo"}
    assert site.call(adam, "POST", "/api/memory/remember", json=note).status_code == 201
    # someone else is told how to get in
    bob = _key(site, "bob")
    refused = site.call(bob, "POST", "/api/memory/remember", json=note)
    assert refused.status_code == 403
    error = refused.json()["error"]
    assert error["reason"] == "unverified_membership"
    assert "add-member" in error["detail"] and "project/apollo" in error["detail"]


def _correct(site: Site, key: str, source_id: str, action: str) -> Any:
    body = {"action": action}
    return site.call(key, "POST", f"/api/memory/inspect/{source_id}/corrections/preview", json=body)


def _apply(site: Site, key: str, source_id: str, action: str) -> None:
    preview = ok(_correct(site, key, source_id, action))
    body = {"action": action, "preview_token": preview["preview_token"]}
    path = f"/api/memory/inspect/{source_id}/corrections"
    ok(site.call(key, "POST", path, json=body))


def test_a_writer_corrects_only_what_he_may_read(site: Site) -> None:
    space = site.admin(
        "POST",
        "/api/admin/spaces",
        json={"scope": "project", "scope_key": "apollo", "writes_enabled": True},
    )
    bob = _key(site, "bob")
    path = f"/api/admin/spaces/{space['space_id']}/members"
    site.admin("POST", path, json={"principal": "bob", "role": "writer"})
    where = {"scope": "project", "scope_key": "apollo"}

    def note(text: str) -> str:
        body = {"content": text, **where}
        made = ok(site.call(site.owner_key, "POST", "/api/memory/remember", json=body))
        return str(made["source_id"])

    secret, plain, gone = note("wifi secret"), note("standup at ten"), note("old plan")
    _apply(site, site.owner_key, secret, "mark_sensitive")
    _apply(site, site.owner_key, gone, "hide")
    for action in ("hide", "redact", "delete"):
        _refused(_correct(site, bob, secret, action), "sensitive_source")
    # a hidden source does not exist for him: inspect and corrections answer 404
    for answer in (
        site.call(bob, "GET", f"/api/memory/sources/{gone}"),
        _correct(site, bob, gone, "restore"),
        _correct(site, bob, gone, "delete"),
    ):
        assert answer.status_code == 404, answer.text
        assert answer.json()["error"]["reason"] == "not_found"
    # what he may read, he may correct; the owner (space and organisation) corrects all
    assert _correct(site, bob, plain, "mark_stale").status_code == 200
    assert _correct(site, site.owner_key, gone, "restore").status_code == 200
    assert site.call(site.owner_key, "GET", f"/api/memory/sources/{gone}").status_code == 200
