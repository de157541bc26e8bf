"""Sources named in words: titles, authors and metadata without Python's list syntax."""

import pytest

from domain.source_titles import TITLE_CHARS, metadata_words, source_author, source_title


def test_the_metadata_title_wins() -> None:
    assert source_title("body", {"title": "  Re: the  launch "}) == "Re: the launch"


def test_a_note_is_named_by_its_first_line_that_says_something() -> None:
    assert source_title("\n\n> quoted\nHello there\nmore", {}) == "Hello there"
    assert source_title("> only quoted", {}) == "> only quoted"
    assert source_title("", {}) == ""


def test_a_long_first_line_is_cut_between_words() -> None:
    title = source_title("word " * 40, {})
    assert len(title) <= TITLE_CHARS and title.endswith("word…")


def test_author_is_the_senders_name() -> None:
    assert source_author({"from": ["Mikhail Gusarov <m@example.org>"]}) == "Mikhail Gusarov"
    assert source_author({"from": ['"Bea" <b@example.org>', "x"]}) == "Bea"
    assert source_author({"from": ["<b@example.org>"]}) == "b@example.org"
    assert source_author({"from": []}) is None
    assert source_author({}) is None


def test_metadata_values_in_words() -> None:
    assert metadata_words(["Ann <a@x>", "Bo"]) == "Ann <a@x>, Bo"
    assert metadata_words(True) == "yes"
    assert metadata_words(None) == ""
    assert metadata_words(3) == "3"


def test_a_title_is_cut_at_its_last_space_only_past_the_middle() -> None:
    exact = "x" * TITLE_CHARS
    assert source_title(exact, {}) == exact
    assert source_title(exact + "y", {}) == "x" * (TITLE_CHARS - 1) + "…"
    late_space = "ab " + "x" * 60 + " " + "y" * 30
    assert source_title(late_space, {}) == "ab " + "x" * 60 + "…"
    # a space at or before the middle would leave too short a title: cut inside the word
    for at in (TITLE_CHARS // 2, 30):
        text = "a" * at + " " + "b" * 60
        assert source_title(text, {}) == text[: TITLE_CHARS - 1] + "…"


def test_only_quotes_and_brackets_are_trimmed_from_a_name() -> None:
    assert source_author({"from": "Xi <xi@example.org>"}) == "Xi"
    assert source_author({"from": "<MAX>"}) == "MAX"
    assert source_author({"from": "  "}) is None
    assert metadata_words(False) == "no"


@pytest.mark.parametrize(
    ("content", "title"),
    [
        ("# Release notes\n\nThe body.", "Release notes"),
        ("### Decisions taken", "Decisions taken"),
        ("#hashtag is not a heading", "#hashtag is not a heading"),
        ("####### seven marks are no heading", "####### seven marks are no heading"),
    ],
)
def test_a_markdown_heading_names_a_document_without_its_marks(content: str, title: str) -> None:
    assert source_title(content, {}) == title
