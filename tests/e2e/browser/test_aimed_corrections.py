"""Aiming a correction in real Chromium: find the other source by a search, and redact words
chosen by selecting them in the text; the preview shows the text before and after. Both
pages are checked by axe-core (0 serious or critical) and photographed at 1280 and 400 px;
every request stays on 127.0.0.1, with no console error."""

from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.browser.conftest import Server
from tests.e2e.browser.person import People, Person, signed_in_people

pytestmark = pytest.mark.slow

_SELECT = """([text, words]) => {
  const node = document.getElementById(text).firstChild;
  const at = node.data.indexOf(words);
  const range = document.createRange();
  range.setStart(node, at);
  range.setEnd(node, at + words.length);
  const sel = window.getSelection();
  sel.removeAllRanges();
  sel.addRange(range);
}"""


@pytest.fixture(scope="module")
def people(browser: Any, server: Server) -> Iterator[People]:
    yield from signed_in_people(browser, server)


def test_select_words_to_redact_and_the_preview_shows_before_and_after(people: People) -> None:
    owner = people("owner")
    # a plain word, not a random token: other modules search for their own "zq…" tokens
    word = "Northgate"
    newer = owner.remember(f"{word} gate, new code\nThe {word} gate code changed in May.")
    source_id = owner.remember(f"{word} gate\nThe {word} gate code is 4417 until June.")
    page = owner.page
    # the other source is found by a search, named by its title
    page.fill("#find-supersede", f"{word} gate")
    page.click("#act-supersede button:has-text('Find')")
    page.wait_for_selector("#act-supersede fieldset.choices")
    choice = page.locator(f"#act-supersede input[type=radio][value='{newer}']")
    assert choice.count() == 1
    assert f"{word} gate, new code" in page.locator("#act-supersede fieldset").inner_text()
    findings = {"source-aimed": owner.serious_accessibility_findings()}
    owner.screenshot("source-aimed")
    # select words in the text: the span fields fill and the chosen words are said
    page.evaluate(_SELECT, ["source-text", "4417"])
    page.wait_for_selector("#redact-chosen:has-text('Chosen')")
    # offsets count the text as remembered: the browser posts a textarea's lines with CRLF
    text = f"{word} gate\r\nThe {word} gate code is 4417 until June."
    assert page.input_value("#redact-start") == str(text.index("4417"))
    assert page.input_value("#redact-end") == str(text.index("4417") + 4)
    assert "4417" in page.inner_text("#redact-chosen")
    # keep that passage and choose a second one: one redaction removes both
    page.click("#redact-more")
    assert page.locator("#redact-kept li").count() == 1
    assert "4417" in page.inner_text("#redact-kept") and page.input_value("#redact-start") == ""
    page.evaluate(_SELECT, ["source-text", "June"])
    page.wait_for_selector("#redact-chosen:has-text('June')")
    page.fill("#redact-summary", "gate code")
    findings["source-redact-two"] = owner.serious_accessibility_findings()
    owner.screenshot("source-redact-two")
    page.click("#act-redact button[type=submit]")
    page.wait_for_url("**/preview")
    before = page.inner_text("section:has(#before) pre")
    after = page.inner_text("section:has(#after) pre")
    assert "gate code is 4417 until June." in before
    assert "gate code is [redacted: gate code] until [redacted: gate code]." in after
    assert "4417" not in after and "June" not in after
    findings["correction-preview"] = owner.serious_accessibility_findings()
    owner.screenshot("correction-preview")
    page.click("button:has-text('Apply')")
    page.wait_for_url(f"**/memory/sources/{source_id}?done=redact")
    assert "is [redacted: gate code] until [redacted: gate code]." in page.inner_text(
        "#source-text"
    )
    assert all(not found for found in findings.values()), findings
    # leave nothing recalled behind: later modules count their own search's hits
    owner.correct(newer, "hide")


def test_without_script_the_passages_are_typed_as_offsets(browser: Any, server: Server) -> None:
    person = Person(browser, server, "owner", script=False)
    try:
        person.sign_in()
        text = "Locker\nLocker 12 opens with 3390; the spare key is under 7781."
        source_id = person.remember(text)
        page = person.page
        # the script's button stays hidden: one passage, typed as numbers
        assert not page.locator("#redact-more").is_visible()
        # the browser posts a textarea's lines with CRLF, and the server counts that text
        stored = text.replace("\n", "\r\n")
        page.fill("#redact-start", str(stored.index("3390")))
        page.fill("#redact-end", str(stored.index("3390") + 4))
        page.fill("#redact-summary", "locker code")
        page.click("#act-redact button[type=submit]")
        page.wait_for_url("**/preview")
        after = page.inner_text("section:has(#after) pre")
        assert "opens with [redacted: locker code]; the spare key is under 7781." in after
        page.click("button:has-text('Apply')")
        page.wait_for_url(f"**/memory/sources/{source_id}?done=redact")
        shown = page.inner_text("#source-text")
        assert "[redacted: locker code]" in shown and "3390" not in shown
        person.check_clean()
    finally:
        person.close()
