"""Aiming a correction: the other source picked by a search, the words to redact picked as
a span with a summary, and the preview showing the text before and after."""

import re

from tests.e2e.web.conftest import Site, csrf_of
from tests.e2e.web.test_pages import _second_user_key


def _token(html: str) -> str:
    found = re.search(r'name="preview_token" value="([^"]+)"', html)
    assert found is not None
    return found.group(1)


def _section(html: str, heading_id: str) -> str:
    return html.split(f'id="{heading_id}"', 1)[1].split("</section>", 1)[0]


def test_the_picker_lists_readable_matches_by_title_and_never_anothers_private_source(
    site: Site,
) -> None:
    bea_key = _second_user_key(site)
    bea_csrf = site.sign_in(bea_key)
    theirs = site.remember(bea_csrf, "Bea's harbour plan\nThe harbour ferry leaves at six.")
    site.client.post("/memory/sign-out", data={"csrf": bea_csrf})
    csrf = site.sign_in()
    old = site.remember(csrf, "Harbour ferry\nThe harbour ferry leaves at five.")
    new = site.remember(csrf, "Harbour ferry, new times\nThe harbour ferry leaves at seven.")
    page = site.client.get(
        f"/memory/sources/{old}", params={"for": "supersede", "find": "harbour ferry"}
    ).text
    choices = page.split('class="choices"', 1)[1].split("</fieldset>", 1)[0]
    assert f'value="{new}"' in choices and "Harbour ferry, new times" in choices
    assert f'value="{old}"' not in choices  # not itself
    assert theirs not in page and "Bea&#39;s harbour plan" not in page
    assert "harbour plan" not in page
    # the raw id waits in a details block
    assert page.index('<details class="paste">') < page.index('name="target_id"')
    # choosing it goes to the preview, which names both sources
    preview = site.client.post(
        f"/memory/sources/{old}/preview",
        data={"csrf": csrf_of(page), "action": "supersede", "target": new},
    )
    assert preview.status_code == 200, preview.text
    assert "Harbour ferry, new times ranks first" in _section(preview.text, "after")
    applied = site.client.post(
        f"/memory/sources/{old}/apply",
        data={
            "csrf": csrf,
            "action": "supersede",
            "target": new,
            "preview_token": _token(preview.text),
        },
        follow_redirects=False,
    )
    assert applied.status_code == 303, applied.text


def test_nothing_found_says_so_and_no_choice_is_a_reason_in_words(site: Site) -> None:
    csrf = site.sign_in()
    source_id = site.remember(csrf, "A lone note about lighthouses.")
    page = site.client.get(
        f"/memory/sources/{source_id}", params={"for": "mark_duplicate", "find": "lighthouses"}
    ).text
    assert "No other source you may read matches" in page
    refused = site.client.post(
        f"/memory/sources/{source_id}/preview", data={"csrf": csrf, "action": "mark_duplicate"}
    )
    assert refused.status_code == 422
    assert "choose the other source, or paste its id" in refused.text.lower()


def test_a_redaction_of_a_span_previews_before_and_after_and_applies(site: Site) -> None:
    csrf = site.sign_in()
    text = "Gate notes\nThe gate code is 4417 until June."
    source_id = site.remember(csrf, text)
    start = text.index("4417")
    form = {
        "csrf": csrf,
        "action": "redact",
        "start": str(start),
        "end": str(start + 4),
        "summary": "gate code",
    }
    preview = site.client.post(f"/memory/sources/{source_id}/preview", data=form)
    assert preview.status_code == 200, preview.text
    assert "The gate code is 4417 until June." in _section(preview.text, "before")
    after = _section(preview.text, "after")
    assert "The gate code is [redacted: gate code] until June." in after
    assert "4417" not in after
    applied = site.client.post(
        f"/memory/sources/{source_id}/apply",
        data={**form, "preview_token": _token(preview.text)},
        follow_redirects=False,
    )
    assert applied.status_code == 303, applied.text
    page = site.client.get(f"/memory/sources/{source_id}").text
    assert "The gate code is [redacted: gate code] until June." in page and "4417" not in page


def test_a_bad_span_is_refused_with_a_reason_in_words(site: Site) -> None:
    csrf = site.sign_in()
    source_id = site.remember(csrf, "short text")
    cases = [
        ({"start": "5", "end": "5"}, "the words to remove are empty"),
        ({"start": "3", "end": "99"}, "reach past the end of the text (10 characters)"),
        ({"start": "3"}, "give both the start and the end"),
        ({"start": "x", "end": "4"}, "the start is not a whole number"),
    ]
    for span, words in cases:
        answer = site.client.post(
            f"/memory/sources/{source_id}/preview",
            data={"csrf": csrf, "action": "redact", **span},
        )
        assert 400 <= answer.status_code < 500, span
        assert words in answer.text.lower(), span
    assert "short text" in site.client.get(f"/memory/sources/{source_id}").text


def test_a_redaction_removes_several_passages_at_once_and_the_preview_posts_them_all(
    site: Site,
) -> None:
    csrf = site.sign_in()
    text = "Codes\nThe gate code is 4417 and the safe code is 9903."
    source_id = site.remember(csrf, text)
    gate, safe = text.index("4417"), text.index("9903")
    form = {
        "csrf": csrf,
        "action": "redact",
        # the page posts the kept passages first and the fields being chosen last
        "start": [str(safe), str(gate), ""],
        "end": [str(safe + 4), str(gate + 4), ""],
        "summary": "a code",
    }
    preview = site.client.post(f"/memory/sources/{source_id}/preview", data=form)
    assert preview.status_code == 200, preview.text
    after = _section(preview.text, "after")
    assert "The gate code is [redacted: a code] and the safe code is [redacted: a code]." in after
    # the apply form carries both passages, in the text's order
    apply_form = preview.text.split('action="/memory/sources/', 2)[1]
    assert re.findall(r'name="start" value="(\d+)"', apply_form) == [str(gate), str(safe)]
    applied = site.client.post(
        f"/memory/sources/{source_id}/apply",
        data={**form, "preview_token": _token(preview.text)},
        follow_redirects=False,
    )
    assert applied.status_code == 303, applied.text
    page = site.client.get(f"/memory/sources/{source_id}").text
    assert "4417" not in page and "9903" not in page


def test_passages_that_overlap_or_lack_a_partner_are_refused_in_words(site: Site) -> None:
    csrf = site.sign_in()
    source_id = site.remember(csrf, "a short text to redact")
    cases = [
        ({"start": ["2", "4"], "end": ["6", "9"]}, "two of the passages to remove overlap"),
        ({"start": ["2", "8"], "end": ["6"]}, "give both the start and the end"),
        ({"start": ["2", ""], "end": ["6", "9"]}, "give both the start and the end"),
    ]
    for spans, words in cases:
        answer = site.client.post(
            f"/memory/sources/{source_id}/preview",
            data={"csrf": csrf, "action": "redact", **spans},
        )
        assert answer.status_code == 422, spans
        assert words in answer.text.lower(), spans
