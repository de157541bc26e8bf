"""The search page as a person scans it: a count, a title line and a marked snippet per
hit, the reasons folded, the pack compact, and "nothing relevant" said plainly.

Memory text reaches the snippet as text: a payload beside the matched word is shown,
marked where it matches, and never runs.
"""

import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest

from tests.e2e.browser.conftest import Server
from tests.e2e.browser.person import Person, signed_in_owner

pytestmark = pytest.mark.slow

_FILLER = "An unrelated line of quoted mail that goes on about other things. " * 5


@pytest.fixture
def owner(browser: Any, server: Server) -> Iterator[Person]:
    yield from signed_in_owner(browser, server)


def test_hits_show_a_count_a_title_and_a_short_marked_snippet(owner: Person) -> None:
    word = "zq" + uuid.uuid4().hex[:8]
    owner.remember(f"Harbour plan\n{_FILLER}The {word} lighthouse keeper signs it off. {_FILLER}")
    payload = '<img src=x onerror="window.__xss=9">'
    owner.remember(f"Second note about the {word} lighthouse\n{payload}")
    owner.page.goto(owner.url("/memory/search?q=" + quote(f"{word} lighthouse")))
    count = owner.page.inner_text("h2#hits")
    assert count.startswith("2 results for"), count
    titles = owner.page.locator("ol.hits .hit-title").all_inner_texts()
    assert "Harbour plan" in titles and f"Second note about the {word} lighthouse" in titles
    snippets = owner.page.locator("ol.hits .snippet")
    for i in range(snippets.count()):
        text = snippets.nth(i).inner_text()
        assert len(text) < 300, text  # a few lines, not the whole chunk
        marked = [m.lower() for m in snippets.nth(i).locator("mark").all_inner_texts()]
        assert word in marked and "lighthouse" in marked
    assert any("onerror" in s for s in snippets.all_inner_texts())  # shown as text
    assert owner.page.evaluate("window.__xss === undefined")
    # the reasons and the pack are folded until asked for
    assert owner.page.locator("details.why[open]").count() == 0
    assert owner.page.locator("details.pack-items").count() == 1
    assert not owner.page.is_visible("details.pack-items ol.pack")
    # the navigation marks where you are
    assert owner.page.get_attribute("nav a[aria-current=page]", "href") == "/memory/search"
    assert owner.serious_accessibility_findings() == []
    owner.screenshot("search-layout")


def test_a_question_nothing_is_about_says_so_plainly(owner: Person) -> None:
    owner.remember("The ledger service stores its entries in SurrealDB.")
    owner.page.goto(owner.url("/memory/search?q=" + quote("xylophone quantum banana")))
    empty = owner.page.inner_text(".empty")
    assert empty.startswith("Nothing relevant."), empty
    assert owner.page.inner_text("h2#hits").startswith("No results for")
    assert owner.page.locator("ol.hits").count() == 0
    assert owner.serious_accessibility_findings() == []
    owner.screenshot("search-nothing")


def test_ten_long_results_fit_in_about_two_screens(owner: Person) -> None:
    """Ten hits of about 1,000 characters each: a person scans them in about two screens
    at 1280 px (900 px tall), and in a few more at 400 px. Measured to the end of the tenth
    hit (weaker matches from other modules' notes may follow it); the heights are printed."""
    word = "zq" + uuid.uuid4().hex[:8]
    for n in range(10):
        owner.remember(f"Survey note {n + 1}\n{_FILLER}The {word} survey, part {n + 1}. {_FILLER}")
    owner.page.goto(owner.url("/memory/search?q=" + quote(word)))
    tenth = "ol.hits > li:nth-child(10)"
    assert word in owner.page.locator(tenth).inner_text().lower()
    ends = {}
    for width in (1280, 400):
        owner.page.set_viewport_size({"width": width, "height": 900})
        ends[width] = owner.page.evaluate(
            f"document.querySelector('{tenth}').getBoundingClientRect().bottom + window.scrollY"
        )
    owner.page.set_viewport_size({"width": 1280, "height": 900})
    print(f"the tenth long result ends at {ends[1280]:.0f} px at 1280, {ends[400]:.0f} at 400")
    assert ends[1280] <= 2 * 900 + 200, ends
    assert ends[400] <= 4 * 900, ends
