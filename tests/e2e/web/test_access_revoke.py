"""Revoking one's own delegation and keys from the access page, without a browser.

A member, not an admin, ends the delegation they granted their agent and
revokes their agent's key: preview first (in words, with a token), CSRF on
the form, and a preview gone stale answers 409 with the reason and the
fresh preview in its place.
"""

import re
from typing import Any

from tests.e2e.web.conftest import Site, csrf_of


def _api(site: Site, method: str, path: str, key: str | None = None, **kw: Any) -> Any:
    answer = site.client.request(
        method, path, headers={"authorization": f"Bearer {key or site.owner_key}"}, **kw
    )
    assert answer.status_code < 300, answer.text
    return answer.json()


def _people(site: Site) -> tuple[str, str]:
    """bea (a member) and her agent with a live delegation: their keys."""
    _api(site, "POST", "/api/admin/principals", json={"name": "bea"})
    bea = str(_api(site, "POST", "/api/admin/keys", json={"principal": "bea"})["key"])
    # bea creates her agent, delegates to it and mints its key herself
    agent = {"name": "bea-scribe", "acting_for": "bea", "delegation_days": 30}
    _api(site, "POST", "/api/admin/principals", bea, json=agent)
    scribe = _api(site, "POST", "/api/admin/keys", bea, json={"principal": "bea-scribe"})["key"]
    return bea, str(scribe)


def _link(html: str, kind: str) -> str:
    found = re.search(rf'href="(/memory/access/{kind}/[^"]+/revoke)"', html)
    assert found is not None, html
    return found.group(1)


def _token(html: str) -> str:
    found = re.search(r'name="token" value="([^"]+)"', html)
    assert found is not None
    return found.group(1)


def test_a_member_ends_her_agents_delegation_after_its_preview(site: Site) -> None:
    bea, scribe = _people(site)
    csrf = site.sign_in(bea)
    site.remember(csrf, "bea private canary quokka-5150")
    page = site.client.get("/memory/access").text
    assert "Your keys and delegations" in page and "bea-scribe acts for you" in page
    assert "API keys" not in page  # not an admin: only her own
    url = _link(page, "delegations")
    preview = site.client.get(url)
    assert preview.status_code == 200
    assert "bea-scribe stops acting for bea" in preview.text
    assert "cannot be undone" in preview.text
    token = _token(preview.text)
    # no CSRF token: refused, nothing changed
    assert site.client.post(url, data={"token": token}).status_code == 403
    done = site.client.post(url, data={"csrf": csrf, "token": token}, follow_redirects=False)
    assert done.status_code == 303 and done.headers["location"].endswith("delegation-revoked")
    after = site.client.get(done.headers["location"]).text
    assert "The delegation is revoked" in after and "bea-scribe acts for you" in after
    assert f'href="{url}"' not in after  # nothing left to revoke
    # the agent now sees nothing of bea's private memory
    site.client.cookies.clear()
    site.sign_in(scribe)
    found = site.client.get("/memory/search", params={"q": "quokka canary"}).text
    assert "quokka-5150" not in found


def test_a_stale_preview_answers_409_with_the_reason_and_a_fresh_preview(site: Site) -> None:
    bea, _ = _people(site)
    csrf = site.sign_in(bea)
    url = _link(site.client.get("/memory/access").text, "delegations")
    stale_token = _token(site.client.get(url).text)
    first = site.client.post(url, data={"csrf": csrf, "token": _token(site.client.get(url).text)})
    assert first.status_code == 200  # redirected to the access page
    # the same delegation revoked meanwhile (here by the first submit): the old preview is stale
    again = site.client.post(url, data={"csrf": csrf, "token": stale_token})
    assert again.status_code == 409
    assert "preview_stale" in again.text and "Nothing was revoked" in again.text
    assert "Already revoked" in again.text  # the fresh preview, in its place
    assert csrf_of(again.text) == csrf


def test_a_member_revokes_her_agents_key_but_not_anothers(site: Site) -> None:
    bea, scribe = _people(site)
    csrf = site.sign_in(bea)
    page = site.client.get("/memory/access").text
    scribe_id = scribe.split("_")[1]
    url = f"/memory/access/keys/{scribe_id}/revoke"
    assert url in page
    preview = site.client.get(url).text
    assert "<dt>Of</dt><dd>bea-scribe</dd>" in preview
    assert scribe not in preview  # never the secret
    done = site.client.post(url, data={"csrf": csrf, "token": _token(preview)})
    assert done.status_code == 200 and "The key is revoked" in done.text
    refused = site.client.get("/api/memory/spaces", headers={"authorization": f"Bearer {scribe}"})
    assert refused.status_code == 401
    owner_id = site.owner_key.split("_")[1]
    assert site.client.get(f"/memory/access/keys/{owner_id}/revoke").status_code == 404


def test_revoking_the_key_you_are_signed_in_with_signs_you_out(site: Site) -> None:
    bea, _ = _people(site)
    csrf = site.sign_in(bea)
    url = f"/memory/access/keys/{bea.split('_')[1]}/revoke"
    preview = site.client.get(url).text
    assert "you will be signed out" in preview
    form = {"csrf": csrf, "token": _token(preview)}
    done = site.client.post(url, data=form, follow_redirects=False)
    assert done.status_code == 303 and done.headers["location"] == "/memory/sign-in"
    gone = site.client.get("/memory", follow_redirects=False)
    assert gone.status_code == 303 and gone.headers["location"] == "/memory/sign-in"
