"""The review, synthesize, access and status pages, without a browser (fast).

Each page is a view over its use case: these pin what each principal sees
(and never sees), that every form needs the session's CSRF token (403,
nothing changed), and the two-step flows (accept after its preview, revoke
after its preview, synthesize stage by stage with citations linking to
sources).
"""

import re
from typing import Any

from tests.e2e.web.conftest import Site, csrf_of

_DECISION = "We decided to go with SurrealDB for the ledger service."


def _api(site: Site, method: str, path: str, key: str | None = None, **kw: Any) -> Any:
    answer = site.client.request(
        method, path, headers={"authorization": f"Bearer {key or site.owner_key}"}, **kw
    )
    assert answer.status_code < 300, answer.text
    return answer.json()


def _candidate(site: Site, csrf: str, text: str = _DECISION) -> tuple[str, str]:
    source_id = site.remember(csrf, text)
    made = _api(site, "POST", "/api/memory/reflect", json={"source_ids": [source_id]})
    assert made["candidates"], made
    return source_id, made["candidates"][0]["id"]


def _user(site: Site, name: str, **extra: Any) -> str:
    _api(site, "POST", "/api/admin/principals", json={"name": name, **extra})
    return str(_api(site, "POST", "/api/admin/keys", json={"principal": name})["key"])


def test_the_new_pages_need_a_session(site: Site) -> None:
    for path in ("/memory/review", "/memory/synthesize", "/memory/access", "/memory/status"):
        answer = site.client.get(path, follow_redirects=False)
        assert answer.status_code == 303 and answer.headers["location"] == "/memory/sign-in"


def test_review_shows_evidence_escaped_then_accept_after_its_preview(site: Site) -> None:
    csrf = site.sign_in()
    source_id, candidate_id = _candidate(
        site, csrf, "We decided to go with <b>SurrealDB</b> for the ledger service."
    )
    listed = site.client.get("/memory/review").text
    assert f"/memory/sources/{source_id}" in listed
    assert "&lt;b&gt;SurrealDB&lt;/b&gt;" in listed and "<b>SurrealDB" not in listed
    assert f"/memory/review/{candidate_id}/accept" in listed
    assert '<span class="kind">A decision</span>' in listed  # the type in words
    assert listed.count("&lt;b&gt;SurrealDB&lt;/b&gt;") == 1  # the evidence does not repeat it
    assert "Said in full by</span>" in listed and "found by the built-in rules" in listed
    preview = site.client.get(f"/memory/review/{candidate_id}/accept")
    assert preview.status_code == 200
    assert "What accepting writes" in preview.text and "Who would see it" in preview.text
    assert "<strong>1</strong> would see the kept records" in preview.text
    token = re.search(r'name="preview_token" value="([^"]+)"', preview.text)
    assert token is not None
    # the preview changed nothing: still pending
    assert candidate_id in _ids(site, "pending")
    forged = site.client.post(
        f"/memory/review/{candidate_id}/accept", data={"csrf": csrf, "preview_token": "v1.x"}
    )
    assert forged.status_code == 422 and candidate_id in _ids(site, "pending")
    done = site.client.post(
        f"/memory/review/{candidate_id}/accept",
        data={"csrf": csrf, "preview_token": token.group(1)},
        follow_redirects=False,
    )
    assert done.status_code == 303 and "done=accepted" in done.headers["location"]
    assert candidate_id not in _ids(site, "pending")
    assert candidate_id in _ids(site, "accepted")
    # accepted is final: the page offers no action and the use case refuses a second accept
    again = site.client.post(f"/memory/review/{candidate_id}/accept", data={"csrf": csrf})
    assert again.status_code == 409


def test_accept_after_a_correction_of_its_source_is_refused_as_stale(site: Site) -> None:
    csrf = site.sign_in()
    source_id, candidate_id = _candidate(site, csrf)
    preview = site.client.get(f"/memory/review/{candidate_id}/accept")
    token = re.search(r'name="preview_token" value="([^"]+)"', preview.text)
    assert token is not None
    stale = {"action": "mark_stale"}
    made = _api(site, "POST", f"/api/memory/inspect/{source_id}/corrections/preview", json=stale)
    _api(
        site,
        "POST",
        f"/api/memory/inspect/{source_id}/corrections",
        json={**stale, "preview_token": made["preview_token"]},
    )
    late = site.client.post(
        f"/memory/review/{candidate_id}/accept",
        data={"csrf": csrf, "preview_token": token.group(1)},
    )
    assert late.status_code == 409 and "source_changed" in late.text
    assert candidate_id in _ids(site, "pending")
    # a space the policy refuses is shown with its reason and no accept button
    refused = site.client.get(
        f"/memory/review/{candidate_id}/accept", params={"space": "organization"}
    )
    assert refused.status_code == 200 and "scope_disabled" in refused.text
    assert "Accept and keep" not in refused.text


def _ids(site: Site, state: str) -> list[str]:
    listed = _api(site, "GET", "/api/memory/candidates", params={"state": state})
    return [c["id"] for c in listed["candidates"]]


def test_reject_and_defer_and_csrf_missing_changes_nothing(site: Site) -> None:
    csrf = site.sign_in()
    _, first = _candidate(site, csrf)
    _, second = _candidate(site, csrf, "We decided to ship the beta on Friday.")
    for data in ({}, {"csrf": "forged"}):
        for action in ("accept", "reject", "defer"):
            answer = site.client.post(f"/memory/review/{first}/{action}", data=data)
            assert answer.status_code == 403
    assert first in _ids(site, "pending")
    assert (
        site.client.post(
            f"/memory/review/{first}/reject", data={"csrf": csrf}, follow_redirects=False
        ).status_code
        == 303
    )
    assert (
        site.client.post(
            f"/memory/review/{second}/defer", data={"csrf": csrf}, follow_redirects=False
        ).status_code
        == 303
    )
    assert first in _ids(site, "rejected") and second in _ids(site, "deferred")
    assert "Deferred" in site.client.get("/memory/review?done=deferred").text


def test_another_users_candidate_and_its_evidence_never_reach_their_page(site: Site) -> None:
    csrf = site.sign_in()
    _, candidate_id = _candidate(site, csrf, "We decided the canary word is quokka-4417.")
    key = _user(site, "bea")
    site.client.cookies.clear()
    site.sign_in(key)
    listed = site.client.get("/memory/review").text
    assert "quokka-4417" not in listed and candidate_id not in listed
    answer = site.client.get(f"/memory/review/{candidate_id}/accept")
    assert answer.status_code == 404 and "quokka" not in answer.text
    refused = site.client.post(
        f"/memory/review/{candidate_id}/reject", data={"csrf": csrf_of(listed)}
    )
    assert refused.status_code == 404


def test_synthesize_plan_draft_verify_remember_with_citations_to_sources(site: Site) -> None:
    csrf = site.sign_in()
    ids = [
        site.remember(csrf, "The ledger service stores every entry in SurrealDB."),
        site.remember(csrf, "The ledger service replays entries after a crash."),
    ]
    planned = site.client.post(
        "/memory/synthesize/plan",
        data={"csrf": csrf, "query": "ledger service", "output_type": "brief"},
        follow_redirects=False,
    )
    assert planned.status_code == 303
    run_path = planned.headers["location"]
    run_id = run_path.rsplit("/", 1)[-1]
    run = site.client.get(run_path).text
    assert "ledger service" in run and "planned" in run
    listed = site.client.get("/memory/synthesize").text
    assert f"/memory/synthesize/runs/{run_id}" in listed
    packs = site.client.post(f"{run_path}/sections", data={"csrf": csrf}).text
    assert "Section packs" in packs
    assert '<details class="pack-section">' in packs  # folded, one per section
    assert "The ledger service stores every entry in SurrealDB.</a>" in packs  # by title
    assert "<mark>ledger</mark>" in packs  # a snippet around the query's words
    draft = site.client.post(f"{run_path}/draft", data={"csrf": csrf})
    assert draft.status_code == 200
    cited = set(re.findall(r'class="cite" href="/memory/sources/([^"]+)"', draft.text))
    assert cited and cited <= set(ids)
    # citations are numbered per draft and listed by title, not by id prefixes
    assert ">[1]<" in draft.text and "[source " not in draft.text
    listed_cited = draft.text.split("Sources cited")[1].split("</ol>")[0]
    assert len(re.findall(r"<li>", listed_cited)) == len(cited)
    verified = site.client.post(f"{run_path}/verify", data={"csrf": csrf}).text
    assert "Verification:" in verified
    beside = verified.split('class="grid two verify-beside"')[1]
    assert beside.index('id="draft"') < beside.index("Remember the document")
    assert "verified" in site.client.get("/memory/synthesize").text  # the stage it reached
    kept = site.client.post(
        f"{run_path}/remember", data={"csrf": csrf, "space": ""}, follow_redirects=False
    )
    assert kept.status_code == 303, kept.text
    artifact = kept.headers["location"].split("?")[0]
    assert site.client.get(artifact).status_code == 200
    finished = site.client.get(run_path).text
    assert artifact in finished  # the run links its remembered document
    document = finished.split('id="document-text">')[1].split("</div>")[0]
    assert "SurrealDB" in document  # and shows it
    assert not any(f"[{i}]" in document for i in ids)  # citations as numbers, not ids


def test_synthesis_runs_are_the_callers_own_and_forms_need_csrf(site: Site) -> None:
    csrf = site.sign_in()
    forged = site.client.post(
        "/memory/synthesize/plan", data={"query": "ledger"}, follow_redirects=False
    )
    assert forged.status_code == 403
    assert "/memory/synthesize/runs/" not in site.client.get("/memory/synthesize").text
    planned = site.client.post(
        "/memory/synthesize/plan", data={"csrf": csrf, "query": "ledger"}, follow_redirects=False
    )
    run_path = planned.headers["location"]
    assert site.client.post(f"{run_path}/draft", data={}).status_code == 403
    key = _user(site, "bea")
    site.client.cookies.clear()
    site.sign_in(key)
    assert site.client.get(run_path).status_code == 404
    assert run_path not in site.client.get("/memory/synthesize").text


def test_status_is_for_the_operator_only(site: Site) -> None:
    site.sign_in()
    mine = site.client.get("/memory/status")
    assert mine.status_code == 200 and "Organisations" in mine.text and "Queues" in mine.text
    assert "Audit receipts to write" in mine.text and "audit_receipts" not in mine.text  # words
    assert "(mem)" not in mine.text and "inprocess" not in mine.text
    key = _user(site, "bea")
    site.client.cookies.clear()
    site.sign_in(key)
    theirs = site.client.get("/memory/status")
    assert theirs.status_code == 403 and "admin_required" in theirs.text
    assert 'href="/memory/status"' not in site.client.get("/memory").text


def test_access_page_for_the_owner_lists_spaces_members_keys_and_previews(site: Site) -> None:
    csrf = site.sign_in()
    _user(site, "bea")
    _user(site, "courier", acting_for="owner", delegation_days=0)
    apollo = {"scope": "project", "scope_key": "apollo"}
    space = _api(site, "POST", "/api/admin/spaces", json=apollo)
    members = f"/api/admin/spaces/{space['space_id']}/members"
    for name in ("bea", "owner"):
        _api(site, "POST", members, json={"principal": name, "role": "writer"})
    _api(site, "POST", f"/api/admin/spaces/{space['space_id']}/writes", json={"enabled": True})
    kept = site.client.post(
        "/memory/remember",
        data={"csrf": csrf, "content": "apollo launch notes", "space": "project:apollo"},
        follow_redirects=False,
    )
    assert kept.status_code == 303
    page = site.client.get("/memory/access").text
    assert "bea (writer)" in page and "courier" in page and "Revoke" in page
    seen = site.client.get("/memory/access", params={"who": "bea"}).text
    assert "bea could recall 1 of its 1 source." in seen
    blind = site.client.get("/memory/access", params={"who": "courier"}).text
    assert "courier may not read this space: courier is an agent, which reads" in blind
    assert "Its 1 source is out of their reach." in blind
    assert "apollo launch notes" not in seen + blind  # counts, never text


def test_revoke_a_key_after_its_preview_and_csrf(site: Site) -> None:
    csrf = site.sign_in()
    key = _user(site, "bea")
    key_id = next(k["key_id"] for k in _api(site, "GET", "/api/admin/keys") if k["key_id"] in key)
    preview = site.client.get(f"/memory/access/keys/{key_id}/revoke")
    assert preview.status_code == 200 and "cannot be undone" in preview.text
    assert key not in preview.text  # never the secret
    assert site.client.post(f"/memory/access/keys/{key_id}/revoke").status_code == 403
    token = re.search(r'name="token" value="([^"]+)"', preview.text)
    assert token is not None
    done = site.client.post(
        f"/memory/access/keys/{key_id}/revoke",
        data={"csrf": csrf, "token": token.group(1)},
        follow_redirects=False,
    )
    assert done.status_code == 303
    refused = site.client.get("/api/memory/spaces", headers={"authorization": f"Bearer {key}"})
    assert refused.status_code == 401


def test_an_agent_without_a_delegation_sees_only_its_own(site: Site) -> None:
    csrf = site.sign_in()
    site.remember(csrf, "owner private canary wombat-9090")
    courier = _user(site, "courier", acting_for="owner", delegation_days=0)
    site.client.cookies.clear()
    agent_csrf = site.sign_in(courier)
    page = site.client.get("/memory/access").text
    assert "an agent" in page and "none: you see your own notes" in page
    assert "API keys" not in page and "Only organisation owners" in page
    assert site.client.get("/memory/access", params={"who": "owner"}).status_code == 200
    for path in ("/memory/review", "/memory/synthesize", "/memory/access"):
        assert "wombat-9090" not in site.client.get(path).text
    planned = site.client.post(
        "/memory/synthesize/plan",
        data={"csrf": agent_csrf, "query": "canary wombat"},
        follow_redirects=False,
    )
    drafted = site.client.post(f"{planned.headers['location']}/draft", data={"csrf": agent_csrf})
    assert drafted.status_code == 200 and "wombat-9090" not in drafted.text
    assert site.client.get("/memory/status").status_code == 403


def test_a_source_hidden_after_the_draft_never_shows_on_the_verify_page(site: Site) -> None:
    csrf = site.sign_in()
    secret = site.remember(csrf, "The ledger vault code is marmot-5521 for the ledger service.")
    site.remember(csrf, "The ledger service replays entries after a crash.")
    planned = site.client.post(
        "/memory/synthesize/plan",
        data={"csrf": csrf, "query": "ledger service vault code"},
        follow_redirects=False,
    )
    run_path = planned.headers["location"]
    drafted = site.client.post(f"{run_path}/draft", data={"csrf": csrf}).text
    assert "marmot-5521" in drafted  # readable when drafted
    preview = site.client.post(
        f"/memory/sources/{secret}/preview", data={"csrf": csrf, "action": "hide"}
    )
    token = re.search(r'name="preview_token" value="([^"]+)"', preview.text)
    assert token is not None
    site.client.post(
        f"/memory/sources/{secret}/apply",
        data={"csrf": csrf, "action": "hide", "preview_token": token.group(1)},
    )
    verified = site.client.post(f"{run_path}/verify", data={"csrf": csrf})
    assert verified.status_code == 200 and "Verification:" in verified.text
    assert "marmot-5521" not in verified.text
    assert "marmot-5521" not in site.client.get(run_path).text
    assert "marmot-5521" not in site.client.post(f"{run_path}/draft", data={"csrf": csrf}).text
