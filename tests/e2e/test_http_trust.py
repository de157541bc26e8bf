"""Authentication, policy denials, audit and two-organisation isolation over HTTP."""

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from adapters.inmemory.hashing_embedder import HashingEmbedder
from application.services import Services
from domain.policy import Surface
from entrypoints.container import build_container
from entrypoints.http.app import create_app
from entrypoints.settings import load_settings
from tests.e2e.conftest import services_over_fakes

SECRET = "Ana's surprise party is at the boathouse on Saturday"


class Site:
    def __init__(self, client: TestClient[Any], services: Services, owner_key: str) -> None:
        self.client = client
        self.services = services
        self.owner_key = owner_key

    def call(self, key: str | None, method: str, path: str, **kw: Any) -> Any:
        headers = {} if key is None else {"authorization": f"Bearer {key}"}
        return self.client.request(method, path, headers=headers, **kw)

    def admin(self, method: str, path: str, **kw: Any) -> Any:
        response = self.call(self.owner_key, method, path, **kw)
        assert response.status_code < 300, response.text
        return response.json()


def _surreal_services(tmp_path: Path) -> Services:
    """The real stores (embedded SurrealDB: memory, control plane, audit) with a fast embedder."""
    settings = load_settings({"TESSERA_DATA_DIR": str(tmp_path), "TESSERA_DB_URL": "mem://"})
    container = build_container(settings)
    container.embedder.override(HashingEmbedder())
    return container.services()


@contextmanager
def open_site(kind: str, tmp_path: Path) -> Iterator[Site]:
    """The app over the fakes or over embedded SurrealDB, as its bootstrapped owner."""
    services = services_over_fakes() if kind == "fakes" else _surreal_services(tmp_path)
    with TestClient(app=create_app(services)) as client:  # startup bootstraps the owner
        assert services.bootstrap_key is not None
        yield Site(client, services, services.bootstrap_key.key)


@pytest.fixture(params=["fakes", "surrealdb"])
def site(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Site]:
    with open_site(request.param, tmp_path) as opened:
        yield opened


def user_key(site: Site, name: str) -> str:
    """A new member of the home organisation, and its key."""
    site.admin("POST", "/api/admin/principals", json={"name": name})
    key: str = site.admin("POST", "/api/admin/keys", json={"principal": name})["key"]
    return key


def ok(response: Any) -> Any:
    assert response.status_code < 300, response.text
    return response.json()


def _org_with_owner(site: Site, name: str) -> tuple[str, str]:
    org = site.admin("POST", "/api/admin/orgs", json={"name": name})
    owner = site.admin(
        "POST", "/api/admin/principals", json={"name": "boss", "org": name, "org_role": "owner"}
    )
    key = site.admin("POST", "/api/admin/keys", json={"principal": "boss", "org": name})
    assert key["principal_id"] == owner["principal_id"]
    return org["org_id"], key["key"]


def test_health_and_schema_need_no_key(site: Site) -> None:
    assert site.call(None, "GET", "/api/health").status_code == 200
    assert site.call(None, "GET", "/schema/openapi.json").status_code == 200


def test_every_other_route_needs_a_key(site: Site) -> None:
    open_paths = {"/api/health"}
    checked = 0
    for route in site.client.app.routes:
        if route.path in open_paths or route.path.startswith("/schema"):
            continue
        if route.path.startswith("/memory"):
            continue  # the workspace's pages sign in with a session (tests/e2e/web)
        for method in route.methods - {"OPTIONS", "HEAD"}:
            path = route.path.replace("{source_id:str}", "x").replace("{space_id:str}", "x")
            path = path.replace("{key_id:str}", "x").replace("{delegation_id:str}", "x")
            response = site.call(None, method, path, json={})
            assert response.status_code == 401, (method, path, response.text)
            assert response.json()["error"]["reason"] == "missing_api_key"
            checked += 1
    assert checked >= 14


@pytest.mark.parametrize(
    ("header", "reason"),
    [
        ("Bearer", "missing_api_key"),
        ("Basic dXNlcjpwYXNz", "missing_api_key"),
        ("Bearer not-a-key", "invalid_api_key"),
        ("Bearer tsk_abc_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "invalid_api_key"),
    ],
)
def test_bad_keys_are_401(site: Site, header: str, reason: str) -> None:
    response = site.client.post(
        "/api/search", json={"query": "x"}, headers={"authorization": header}
    )
    assert response.status_code == 401
    assert response.json()["error"]["reason"] == reason


def test_a_tampered_secret_is_401(site: Site) -> None:
    tampered = site.owner_key[:-4] + ("AAAA" if not site.owner_key.endswith("AAAA") else "BBBB")
    response = site.call(tampered, "POST", "/api/search", json={"query": "x"})
    assert response.status_code == 401
    assert response.json()["error"]["reason"] == "invalid_api_key"


def test_a_revoked_key_is_401_at_once(site: Site) -> None:
    site.admin("POST", "/api/admin/principals", json={"name": "ana"})
    issued = site.admin("POST", "/api/admin/keys", json={"principal": "ana"})
    assert site.call(issued["key"], "POST", "/api/search", json={"query": "x"}).status_code == 200
    site.admin("POST", f"/api/admin/keys/{issued['key_id']}/revoke")
    response = site.call(issued["key"], "POST", "/api/search", json={"query": "x"})
    assert response.status_code == 401
    assert response.json()["error"]["reason"] == "revoked_api_key"
    listed = site.admin("GET", "/api/admin/keys")
    assert all("secret" not in k and "secret_hash" not in k for k in listed)
    assert any(k["key_id"] == issued["key_id"] and k["revoked_at"] for k in listed)


def test_policy_denials_are_403_with_the_reason(site: Site) -> None:
    site.admin("POST", "/api/admin/principals", json={"name": "ana"})
    ana = site.admin("POST", "/api/admin/keys", json={"principal": "ana"})["key"]
    team = site.call(
        ana,
        "POST",
        "/api/memory/remember",
        json={"content": "x", "scope": "team", "scope_key": "t"},
    )
    assert team.status_code == 403
    assert team.json()["error"]["reason"] == "scope_disabled"
    project = site.call(
        ana,
        "POST",
        "/api/memory/remember",
        json={"content": "x", "scope": "project", "scope_key": "apollo"},
    )
    assert project.json()["error"]["reason"] == "unverified_membership"
    audit = site.call(ana, "GET", "/api/audit")
    assert audit.status_code == 403
    assert audit.json()["error"]["reason"] == "admin_required"
    assert site.call(ana, "POST", "/api/admin/orgs", json={"name": "x"}).status_code == 403


def test_audit_receipts_record_decisions_without_text(site: Site) -> None:
    site.admin("POST", "/api/admin/principals", json={"name": "ana"})
    ana = site.admin("POST", "/api/admin/keys", json={"principal": "ana"})["key"]
    site.call(ana, "POST", "/api/memory/remember", json={"content": SECRET})
    site.call(ana, "POST", "/api/search", json={"query": "surprise party boathouse"})
    site.call(ana, "POST", "/api/memory/remember", json={"content": SECRET, "scope": "public"})
    receipts = site.admin("GET", "/api/audit", params={"limit": 50})
    actions = {(r["action"], r["allowed"], r["reason"]) for r in receipts}
    assert ("remember", True, "allowed") in actions
    assert ("search", True, "allowed") in actions
    assert ("remember", False, "scope_disabled") in actions
    dumped = str(receipts)
    assert "boathouse" not in dumped and "surprise" not in dumped
    search = next(r for r in receipts if r["action"] == "search")
    assert search["counts"]["returned"] == 1 and "query" in search["hashes"]


def test_access_preview_lists_ids_and_reasons_without_text(site: Site) -> None:
    space = site.admin(
        "POST", "/api/admin/spaces", json={"scope": "project", "scope_key": "apollo"}
    )
    site.admin("POST", "/api/admin/principals", json={"name": "ana"})
    site.admin("POST", "/api/admin/principals", json={"name": "bo"})
    site.admin(
        "POST",
        f"/api/admin/spaces/{space['space_id']}/members",
        json={"principal": "ana", "role": "writer"},
    )
    ana = site.admin("POST", "/api/admin/keys", json={"principal": "ana"})["key"]
    body = {"content": SECRET, "scope": "project", "scope_key": "apollo"}
    source_id = site.call(ana, "POST", "/api/memory/remember", json=body).json()["source_id"]
    path = f"/api/memory/spaces/{space['space_id']}/access-preview"
    for_ana = site.admin("POST", path, json={"principal": "ana"})
    assert for_ana["allowed"] and for_ana["recallable_source_ids"] == [source_id]
    for_bo = site.admin("POST", path, json={"principal": "bo"})
    assert not for_bo["allowed"] and for_bo["recallable_source_ids"] == []
    assert for_bo["reason"] == "unverified_membership"
    assert for_bo["deny_reasons"] == {"unverified_membership": 1}
    assert "boathouse" not in str(for_bo) + str(for_ana)
    assert site.call(ana, "POST", path, json={"principal": "bo"}).status_code == 403


def test_two_organisations_never_see_each_other(site: Site) -> None:
    a_org, a_key = _org_with_owner(site, "org-a")
    b_org, b_key = _org_with_owner(site, "org-b")
    project = site.call(
        a_key, "POST", "/api/admin/spaces", json={"scope": "project", "scope_key": "apollo"}
    ).json()
    site.call(
        a_key,
        "POST",
        f"/api/admin/spaces/{project['space_id']}/members",
        json={"principal": "boss"},
    )
    a_private = site.call(a_key, "POST", "/api/memory/remember", json={"content": SECRET}).json()
    org_space = site.call(
        a_key, "POST", "/api/admin/spaces", json={"scope": "organization", "writes_enabled": True}
    ).json()
    a_public = site.call(
        a_key, "POST", "/api/memory/remember", json={"content": SECRET, "scope": "organization"}
    ).json()
    assert "source_id" in a_public, a_public
    # org A sees its own memory
    hits = site.call(a_key, "POST", "/api/search", json={"query": "surprise party"}).json()
    assert {h["source_id"] for h in hits["results"]} == {
        a_private["source_id"],
        a_public["source_id"],
    }

    # org B: search, pack, inspect, preview, audit, admin lists, with A's ids pasted in
    hits = site.call(b_key, "POST", "/api/search", json={"query": "surprise party boathouse"})
    assert hits.status_code == 200 and hits.json()["results"] == []
    pack = site.call(b_key, "POST", "/api/context/pack", json={"query": "surprise party"}).json()
    assert pack["items"] == [] and pack["token_count"] == 0 and pack["omitted"] == 0
    for source_id in (a_private["source_id"], a_public["source_id"]):
        inspected = site.call(b_key, "GET", f"/api/memory/sources/{source_id}")
        assert inspected.status_code == 404
    for space_id in (project["space_id"], org_space["space_id"]):
        preview = site.call(
            b_key,
            "POST",
            f"/api/memory/spaces/{space_id}/access-preview",
            json={"principal": "boss"},
        )
        assert preview.status_code == 404
    spaces = site.call(b_key, "GET", "/api/memory/spaces").json()
    assert all(s["space_id"] not in (project["space_id"], org_space["space_id"]) for s in spaces)
    audit = site.call(b_key, "GET", "/api/audit", params={"limit": 1000}).json()
    assert all(r["org_id"] == b_org for r in audit)
    # B's receipts name A's ids only where B itself pasted them, and were refused
    pasted = [r for r in audit if a_private["source_id"] in r["ids"]]
    assert pasted and all(not r["allowed"] and r["reason"] == "not_found" for r in pasted)
    for path in ("/api/admin/keys", "/api/admin/principals", "/api/admin/spaces"):
        denied = site.call(b_key, "GET", path, params={"org": "org-a"})
        assert denied.status_code == 403, path
        denied = site.call(b_key, "GET", path, params={"org": a_org})
        assert denied.status_code == 403, path
    member = site.call(
        b_key,
        "POST",
        f"/api/admin/spaces/{project['space_id']}/members",
        json={"principal": "boss", "role": "owner"},
    )
    assert member.status_code == 404  # A's space id means nothing in B
    a_keys = site.call(a_key, "GET", "/api/admin/keys").json()
    revoke = site.call(b_key, "POST", f"/api/admin/keys/{a_keys[0]['key_id']}/revoke")
    assert revoke.status_code == 404
    # and B's writes stay in B
    site.call(b_key, "POST", "/api/memory/remember", json={"content": "boathouse inventory list"})
    hits = site.call(a_key, "POST", "/api/search", json={"query": "boathouse inventory"}).json()
    assert all(h["source_id"] != "" and "inventory" not in h["text"] for h in hits["results"])


def test_an_agent_header_must_match_the_keys_agent(site: Site) -> None:
    ana = user_key(site, "ana")
    # a user creates her own agent, delegates to it and mints its key
    created = site.call(
        ana,
        "POST",
        "/api/admin/principals",
        json={"name": "scribe", "acting_for": "ana", "delegation_days": 1},
    )
    assert created.status_code == 201, created.text
    scribe = ok(site.call(ana, "POST", "/api/admin/keys", json={"principal": "scribe"}))["key"]
    body = {"query": "anything"}
    claimed = {"authorization": f"Bearer {ana}", "x-tessera-agent": "scribe"}
    refused = site.client.post("/api/search", json=body, headers=claimed)
    assert refused.status_code == 403
    assert refused.json()["error"]["reason"] == "agent_identity_required"
    own = {"authorization": f"Bearer {scribe}", "x-tessera-agent": "scribe"}
    assert site.client.post("/api/search", json=body, headers=own).status_code == 200


def test_receipts_name_the_surface_the_app_serves() -> None:
    services = services_over_fakes()
    with TestClient(app=create_app(services, surface=Surface.CLI)) as client:
        assert services.bootstrap_key is not None
        headers = {"authorization": f"Bearer {services.bootstrap_key.key}"}
        client.post("/api/search", json={"query": "x"}, headers=headers)
        receipts = client.get("/api/audit", headers=headers).json()
    assert {r["surface"] for r in receipts if r["action"] == "search"} == {"cli"}
