"""Making keys, agents and people on the access page: the admin API's use cases and rules,
the secret shown once, and administering that gives no sight of anyone's memory."""

import re
from typing import Any

from tests.e2e.web.conftest import Site


def _api(site: Site, method: str, path: str, key: str | None = None, **kw: Any) -> Any:
    answer = site.client.request(
        method, path, headers={"authorization": f"Bearer {key or site.owner_key}"}, **kw
    )
    assert answer.status_code < 300, answer.text
    return answer.json()


def _secret(page: str) -> str:
    found = re.search(r'<code class="copyable">([^<]+)</code>', page)
    assert found is not None
    return found.group(1)


def _ids(site: Site, query: str, key: str) -> list[str]:
    found = _api(site, "POST", "/api/search", key=key, json={"query": query})
    return [hit["source_id"] for hit in found["results"]]


def test_a_person_makes_an_agent_with_its_first_key_and_the_key_works_once_shown(
    site: Site,
) -> None:
    csrf = site.sign_in()
    diary = site.remember(csrf, "The owner's private diary mentions the walrus plan.")
    made = site.client.post(
        "/memory/access/agents",
        data={"csrf": csrf, "name": "scout", "delegation_days": "7", "with_key": "1"},
    )
    assert made.status_code == 201 and "A new key for scout" in made.text
    key = _secret(made.text)
    assert _ids(site, "walrus plan", key) == [diary]  # the delegation lets it read
    access = site.client.get("/memory/access").text
    assert key not in access  # shown once
    assert "scout acts for owner" in access  # listed among the delegations
    assert _api(site, "GET", "/api/admin/principals")[-1]["acting_for"] is not None


def test_an_admin_adds_a_person_whose_first_key_reads_only_their_own(site: Site) -> None:
    csrf = site.sign_in()
    site.remember(csrf, "The owner's private note about the narwhal budget.")
    made = site.client.post("/memory/access/people", data={"csrf": csrf, "name": "dana"})
    assert made.status_code == 201 and "dana is now in the organisation" in made.text
    key = _secret(made.text)
    assert _ids(site, "narwhal budget", key) == []  # administering gave no sight of memory
    again = site.client.post(
        "/memory/access/keys", data={"csrf": csrf, "principal": "dana"}, follow_redirects=False
    )
    assert again.status_code == 403  # not a first key: only dana makes her own now


def test_a_member_makes_keys_only_for_herself_and_her_agents(site: Site) -> None:
    site.sign_in()
    bea_key = (
        _api(site, "POST", "/api/admin/principals", json={"name": "bea"})
        and _api(site, "POST", "/api/admin/keys", json={"principal": "bea"})["key"]
    )
    site.client.cookies.clear()
    csrf = site.sign_in(bea_key)
    page = site.client.get("/memory/access").text
    assert 'action="/memory/access/people"' not in page  # adding people is for admins
    mine = site.client.post("/memory/access/keys", data={"csrf": csrf, "principal": "bea"})
    assert mine.status_code == 201 and "A new key for bea" in mine.text
    theirs = site.client.post("/memory/access/keys", data={"csrf": csrf, "principal": "owner"})
    assert theirs.status_code == 403 and '<code class="copyable">' not in theirs.text
    person = site.client.post("/memory/access/people", data={"csrf": csrf, "name": "eve"})
    assert person.status_code == 403
    agent = site.client.post(
        "/memory/access/agents", data={"csrf": csrf, "name": "bea-bot", "delegation_days": "0"}
    )
    assert agent.status_code == 200 and "The agent is made" in agent.text  # no key asked for
    choices = agent.text.split('id="k-principal"')[1].split("</select>")[0]
    assert "bea-bot (your agent)" in choices and "owner" not in choices  # a key for it later


def test_bad_input_is_a_422_with_a_reason_and_a_forged_form_changes_nothing(site: Site) -> None:
    csrf = site.sign_in()
    before = len(_api(site, "GET", "/api/admin/principals"))
    days = site.client.post(
        "/memory/access/agents", data={"csrf": csrf, "name": "x", "delegation_days": "soon"}
    )
    assert days.status_code == 422 and "a whole number of days, 0 (none) to 3650" in days.text
    unnamed = site.client.post("/memory/access/agents", data={"csrf": csrf, "name": " "})
    assert unnamed.status_code == 422 and "Give the new agent a name." in unnamed.text
    nobody = site.client.post("/memory/access/keys", data={"csrf": csrf})
    assert nobody.status_code == 422 and "Choose whose key to make." in nobody.text
    for path, data in (
        ("/memory/access/agents", {"name": "forged", "with_key": "1"}),
        ("/memory/access/people", {"name": "forged", "csrf": "x"}),
        ("/memory/access/keys", {"principal": "owner"}),
    ):
        assert site.client.post(path, data=data).status_code == 403
    assert len(_api(site, "GET", "/api/admin/principals")) == before
