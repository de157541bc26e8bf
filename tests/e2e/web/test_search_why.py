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
    hits, pack = page.split('aria-labelledby="pack"')
    assert "Nothing relevant: nothing in memory shares the question&#39;s words" in hits
    assert "(2 weak matches held back)" in hits
    assert '<ol class="hits">' not in hits and "ledger service" not in hits
    # the pack says it too, above the weak items it keeps
    assert "Nothing relevant:" in pack and "are weak matches" in pack
    real = site.client.get("/memory/search", params={"q": "ledger SurrealDB"}).text
    assert "Nothing relevant" not in real and '<ol class="hits">' in real


def test_hits_say_how_many_with_a_title_and_a_snippet_marking_the_words(site: Site) -> None:
    csrf = site.sign_in()
    filler = "Some quoted mail that says nothing at all about it. " * 6
    site.remember(csrf, f"Ledger notes\n{filler}The ledger <b>service</b> moved. {filler}")
    page = site.client.get("/memory/search", params={"q": "ledger service"}).text
    assert re.search(r'<h2 id="hits" class="count">1 result for “ledger service”</h2>', page)
    assert '<a class="open" href="/memory/sources/' in page and ">Ledger notes</a>" in page
    snippet = re.search(r'<p class="snippet text">(.*?)</p>', page, flags=re.S)
    assert snippet is not None
    assert "<mark>ledger</mark>" in snippet[1]
    assert "&lt;b&gt;<mark>service</mark>&lt;/b&gt;" in snippet[1]  # escaped, then marked
    assert snippet[1].startswith("…") and len(snippet[1]) < 600  # not the whole chunk
