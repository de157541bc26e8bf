"""Home's scope switcher, drafts with gaps and suggested follow-up, without a browser."""

from typing import Any

from tests.e2e.web.conftest import Site

_TEXT = "The quarterly budget review moves to the second Tuesday of every month."


def _api(site: Site, method: str, path: str, **kw: Any) -> Any:
    answer = site.client.request(
        method, path, headers={"authorization": f"Bearer {site.owner_key}"}, **kw
    )
    assert answer.status_code < 300, answer.text
    return answer.json()


def _remember(site: Site, csrf: str, content: str, space: str = "") -> str:
    form = {"csrf": csrf, "content": content, **({"space": space} if space else {})}
    answer = site.client.post("/memory/remember", data=form, follow_redirects=False)
    assert answer.status_code == 303, answer.text
    return str(answer.headers["location"].split("/")[-1].split("?")[0])


def _apollo(site: Site) -> None:
    apollo = {"scope": "project", "scope_key": "apollo"}
    space = _api(site, "POST", "/api/admin/spaces", json=apollo)
    members = f"/api/admin/spaces/{space['space_id']}/members"
    _api(site, "POST", members, json={"principal": "owner", "role": "writer"})
    _api(site, "POST", f"/api/admin/spaces/{space['space_id']}/writes", json={"enabled": True})


def test_the_switcher_offers_seven_scopes_and_your_spaces_and_narrows_home(site: Site) -> None:
    csrf = site.sign_in()
    _apollo(site)
    private_note = _remember(site, csrf, "private zebra note about lunch")
    project_note = _remember(site, csrf, "apollo giraffe launch checklist", "project:apollo")
    home = site.client.get("/memory").text
    for scope in ("private", "delegated", "project", "team", "organization", "shared", "public"):
        assert f'<option value="{scope}"' in home
    assert '<option value="project:apollo"' in home
    assert private_note in home and project_note in home
    narrowed = site.client.get("/memory", params={"space": "project:apollo"}).text
    assert project_note in narrowed and private_note not in narrowed
    assert '<option value="project:apollo" selected>' in narrowed
    by_scope = site.client.get("/memory", params={"space": "private"}).text
    assert private_note in by_scope and project_note not in by_scope
    # the quick search carries the choice, and the search page keeps it selected
    assert 'id="home-search-space"' in narrowed
    carried = narrowed.split('id="home-search-space"')[1].split("</select>")[0]
    assert '<option value="project:apollo" selected>' in carried
    found = site.client.get("/memory/search", params={"q": "launch checklist", "space": "private"})
    assert found.status_code == 200 and '<option value="private" selected>' in found.text
    assert project_note not in found.text
    bad = site.client.get("/memory", params={"space": "galaxy"})
    assert bad.status_code == 422 and "galaxy" not in bad.text


def test_home_suggests_a_duplicate_and_a_stale_source_and_lists_open_drafts(site: Site) -> None:
    csrf = site.sign_in()
    first = _remember(site, csrf, _TEXT)
    again = _remember(site, csrf, _TEXT)
    stale = _remember(site, csrf, "The office wifi password rotates every Friday at noon.")
    preview = site.client.post(
        f"/memory/sources/{stale}/preview", data={"csrf": csrf, "action": "mark_stale"}
    )
    token = preview.text.split('name="preview_token" value="')[1].split('"')[0]
    site.client.post(
        f"/memory/sources/{stale}/apply",
        data={"csrf": csrf, "action": "mark_stale", "preview_token": token},
    )
    planned = site.client.post(
        "/memory/synthesize/plan",
        data={"csrf": csrf, "query": "budget review schedule"},
        follow_redirects=False,
    )
    run_url = planned.headers["location"]
    assert site.client.post(f"{run_url}/draft", data={"csrf": csrf}).status_code == 200
    home = site.client.get("/memory").text
    follow = home.split('id="follow-up"')[1].split("</section>")[0]
    assert f'href="/memory/sources/{again}"' in follow and f'/memory/sources/{first}"' in follow
    assert "mark it a duplicate" in follow
    assert f'href="/memory/sources/{stale}"' in follow and "marked stale" in follow
    drafts = home.split('id="drafts"')[1].split("</section>")[0]
    assert f'href="{run_url}"' in drafts and "not verified yet" in drafts


def test_a_space_written_with_a_slash_works_and_a_note_is_kept_where_home_is_narrowed(
    site: Site,
) -> None:
    site.sign_in()
    _apollo(site)
    narrowed = site.client.get("/memory", params={"space": "project/apollo"})
    assert narrowed.status_code == 200
    assert '<option value="project:apollo" selected>' in narrowed.text
    keep = narrowed.text.split('id="note-space"')[1].split("</select>")[0]
    assert '<option value="project:apollo" selected>' in keep
    everywhere = site.client.get("/memory").text.split('id="note-space"')[1].split("</select>")[0]
    assert "selected" in everywhere.split('value="project:apollo"')[0]  # private, first
    for _ in range(3):
        assert site.client.get("/memory/search", params={"q": "launch"}).status_code == 200
    home = site.client.get("/memory").text
    recalls = home.split('id="recalls"')[1].split("</ul>")[0]
    # one line for the three searches and their packs, linked to a search for the same words
    line = 'Searched for <a href="/memory/search?q=launch">“launch”</a> in the workspace 3 times'
    assert recalls.count("<li>") == 1 and line in recalls
    assert "the last found nothing" in recalls
    _api(site, "POST", "/api/search", json={"query": "secret words"})
    recalls = site.client.get("/memory").text.split('id="recalls"')[1].split("</ul>")[0]
    assert "secret words" not in recalls  # receipts keep no text: an API search is unnamed
    assert "(the words are not kept: a program asked)" in recalls
