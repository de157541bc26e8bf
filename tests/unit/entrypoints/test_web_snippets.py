"""A hit's snippet: a window around the query's words, those words marked, text kept as text."""

from entrypoints.web.snippets import Part, query_terms, snippet


def _text(parts: list[Part]) -> str:
    return "".join(p.text for p in parts)


def _marked(parts: list[Part]) -> list[str]:
    return [p.text for p in parts if p.marked]


def test_query_terms_drop_stop_words_and_repeats() -> None:
    assert query_terms("What is the Lighthouse plan? the plan!") == ["lighthouse", "plan"]
    assert query_terms("a I ?") == []


def test_short_text_is_whole_with_its_words_marked() -> None:
    parts = snippet("The lighthouse keeper signs it off.", "lighthouse keeper")
    assert _text(parts) == "The lighthouse keeper signs it off."
    assert _marked(parts) == ["lighthouse", "keeper"]


def test_marks_words_starting_with_a_term_case_insensitively() -> None:
    assert _marked(snippet("Deployment went fine; DEPLOY again.", "deploy")) == [
        "Deployment",
        "DEPLOY",
    ]


def test_long_text_is_cut_around_the_densest_window_on_word_boundaries() -> None:
    filler = "quoted mail line that says nothing much " * 20
    text = filler + "the harbour lighthouse keeper signs on Friday " + filler
    parts = snippet(text, "lighthouse keeper", width=120)
    shown = _text(parts)
    assert shown.startswith("…") and shown.endswith("…")
    assert len(shown) <= 122
    assert _marked(parts) == ["lighthouse", "keeper"]
    inner = shown.strip("…")
    assert inner in " ".join(text.split())  # cut between words, not inside one
    assert not inner.startswith(" ") and text.split().count(inner.split()[0]) > 0


def test_prefers_the_window_with_more_distinct_terms() -> None:
    text = ("apollo " * 3) + "x " * 200 + "apollo launch window"
    parts = snippet(text, "apollo launch", width=60)
    assert "launch" in _marked(parts)


def test_without_a_match_the_start_of_the_text_is_shown() -> None:
    parts = snippet("word " * 100, "absent", width=50)
    assert not _marked(parts)
    assert _text(parts).startswith("word") and _text(parts).endswith("…")


def test_whitespace_is_flattened_and_markup_stays_plain_text() -> None:
    parts = snippet("<script>window.__xss=1</script>\n\n  lighthouse", "lighthouse script")
    assert _text(parts) == "<script>window.__xss=1</script> lighthouse"
    assert _marked(parts) == ["script", "script", "lighthouse"]
    assert all(isinstance(p.text, str) for p in parts)


def test_empty_text() -> None:
    assert snippet("", "anything") == []
