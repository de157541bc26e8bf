"""Search: "Why here", one short line per hit with the full reasons behind <details>, and
"Nothing relevant" said in words for a question nothing in memory is about."""

import re

from tests.e2e.web.conftest import Site


def test_each_hit_says_why_in_one_short_line_with_the_full_list_beneath(site: Site) -> None:
    csrf = site.sign_in()
    for text in (
        "The ledger service stores its entries in SurrealDB.",
        "SurrealDB backs the ledger service since March.",
        "Lunch is at noon on Fridays.",
    ):
        site.remember(csrf, text)
    page = site.client.get("/memory/search", params={"q": "ledger SurrealDB"}).text
    summaries = re.findall(r"<summary>Why here: ([^<]*)</summary>", page)
    assert len(summaries) >= 2
    for line in summaries:
        assert "(rank" not in line and "query's words" not in line
        parts = line.split(" · ")
        assert len(parts) == len(set(parts))  # each said once
    assert "of your words" in summaries[0] and "conversation" not in summaries[0]
    details = re.findall(r'<details class="why">.*?</details>', page, flags=re.S)
    assert len(details) == len(summaries)
    assert "matched the query&#39;s words (rank " in details[0]  # the full reasons, kept


def test_a_question_nothing_is_about_is_answered_in_words_not_with_a_list(site: Site) -> None:
    csrf = site.sign_in()
    for text in ("The ledger service stores its entries in SurrealDB.", "Lunch is at noon."):
        site.remember(csrf, text)
    page = site.client.get("/memory/search", params={"q": "xylophone quantum banana"}).text
    hits, pack = page.split('<section aria-labelledby="pack">')
    assert "Nothing relevant: nothing in memory shares the question&#39;s words" in hits
    assert "(2 weak matches held back)" in hits
    assert '<ol class="hits">' not in hits and "ledger service" not in hits
    # the pack says it too, above the weak items it keeps
    assert "Nothing relevant:" in pack and "are weak matches" in pack
    real = site.client.get("/memory/search", params={"q": "ledger SurrealDB"}).text
    assert "Nothing relevant" not in real and '<ol class="hits">' in real
