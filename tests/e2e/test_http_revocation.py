"""Revoking one's own delegation and key over HTTP: preview, token, 409 when stale."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.test_http_trust import Site, ok, open_site


@pytest.fixture(params=["fakes", "surrealdb"])
def site(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Site]:
    with open_site(request.param, tmp_path) as opened:
        yield opened


def _people(site: Site) -> tuple[str, str, str]:
    """ana (a member), her agent with a live delegation, and bob; their keys."""
    site.admin("POST", "/api/admin/principals", json={"name": "ana"})
    site.admin("POST", "/api/admin/principals", json={"name": "bob"})
    ana, bob = (
        site.admin("POST", "/api/admin/keys", json={"principal": who})["key"]
        for who in ("ana", "bob")
    )
    # ana creates her agent, delegates to it and mints its key herself
    agent = {"name": "ana-scribe", "acting_for": "ana", "delegation_days": 30}
    ok(site.call(ana, "POST", "/api/admin/principals", json=agent))
    scribe = ok(site.call(ana, "POST", "/api/admin/keys", json={"principal": "ana-scribe"}))
    return ana, scribe["key"], bob


def test_a_member_ends_her_agents_delegation_with_a_preview(site: Site) -> None:
    ana, scribe, bob = _people(site)
    ok(site.call(ana, "POST", "/api/memory/remember", json={"content": "Ana's PIN is owl-7."}))
    assert ok(site.call(scribe, "POST", "/api/search", json={"query": "PIN owl"}))["results"]
    owned = ok(site.call(ana, "GET", "/api/access/owned"))
    assert {k["principal_name"] for k in owned["keys"]} == {"ana", "ana-scribe"}
    assert all("secret_hash" not in k for k in owned["keys"])
    (delegation,) = owned["delegations"]
    path = f"/api/access/delegations/{delegation['delegation_id']}"
    # bob may not even see it; the agent may not end its own grant
    for other in (bob, scribe):
        refused = site.call(other, "POST", f"{path}/revoke-preview")
        assert refused.status_code == 404, refused.text
    preview = ok(site.call(ana, "POST", f"{path}/revoke-preview"))
    assert (preview["state"], preview["agent_name"]) == ("live", "ana-scribe")
    wrong = site.call(ana, "POST", f"{path}/revoke", json={"token": "not-it"})
    assert wrong.status_code == 409
    assert wrong.json()["error"]["reason"] == "preview_stale"
    revoked = ok(site.call(ana, "POST", f"{path}/revoke", json={"token": preview["token"]}))
    assert revoked["revoked_at"]
    assert not ok(site.call(scribe, "POST", "/api/search", json={"query": "PIN owl"}))["results"]
    stale = site.call(ana, "POST", f"{path}/revoke", json={"token": preview["token"]})
    assert stale.status_code == 409
    assert "owl" not in stale.text
    assert ok(site.call(ana, "POST", f"{path}/revoke-preview"))["state"] == "revoked"


def test_a_member_revokes_her_own_key_and_it_stops_working(site: Site) -> None:
    ana, _, _ = _people(site)
    key_id = ana.split("_")[1]
    preview = ok(site.call(ana, "POST", f"/api/access/keys/{key_id}/revoke-preview"))
    assert preview["signs_out_caller"] is True
    assert preview["refused"] is None
    path = f"/api/access/keys/{key_id}/revoke"
    done = ok(site.call(ana, "POST", path, json={"token": preview["token"]}))
    assert done["revoked_at"] and "secret_hash" not in done
    after = site.call(ana, "GET", "/api/access/owned")
    assert after.status_code == 401
    assert after.json()["error"]["reason"] == "revoked_api_key"
