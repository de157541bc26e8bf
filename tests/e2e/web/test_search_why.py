"""Search's "Why here" (issue 17): one short line per hit, the full reasons behind <details>."""

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
