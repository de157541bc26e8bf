"""A source's page in words: its title, history in sentences, destructive actions apart,
and a deleted source said plainly."""

import re

from tests.e2e.web.conftest import Site


def _correct(site: Site, csrf: str, source_id: str, action: str) -> None:
    preview = site.client.post(
        f"/memory/sources/{source_id}/preview", data={"csrf": csrf, "action": action}
    )
    assert preview.status_code == 200, preview.text
    token = re.search(r'name="preview_token" value="([^"]+)"', preview.text)
    assert token is not None
    done = site.client.post(
        f"/memory/sources/{source_id}/apply",
        data={"csrf": csrf, "action": action, "preview_token": token.group(1)},
        follow_redirects=False,
    )
    assert done.status_code == 303, done.text


def test_a_source_reads_as_words_with_its_history_in_sentences(site: Site) -> None:
    csrf = site.sign_in()
    source_id = site.remember(csrf, "Standup notes\nThe standup moved to ten.")
    for _ in range(3):
        site.client.get("/memory/search", params={"q": "standup"})
    page = site.client.get(f"/memory/sources/{source_id}").text
    assert "<h1>Standup notes</h1>" in page
    history = page.split('id="history"')[1].split("</section>")[0]
    assert "Found by a search in the workspace, 3 times" in history
    assert history.count("Found by a search") == 1
    assert "workspace_activity" not in history and "allowed" not in history
    assert re.search(r'class="danger">Delete for good…', page)
    assert re.search(r'class="danger">Redact the text…', page)
    assert re.search(r'class="secondary">Hide…', page)
    # the id waits in a details block
    assert page.index('id="source-id"') > page.index('<details class="ids">')


def test_a_deleted_source_says_so_in_words(site: Site) -> None:
    csrf = site.sign_in()
    source_id = site.remember(csrf, "A note to delete for good.")
    _correct(site, csrf, source_id, "delete")
    page = site.client.get(f"/memory/sources/{source_id}").text
    assert "You may read this source; you may not correct it." not in page
    assert "It was deleted for good" in page
    assert "source_deleted" not in page.split('<details class="ids">')[0]
    assert "Corrected: Delete for good" in page
