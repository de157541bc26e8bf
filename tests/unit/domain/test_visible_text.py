"""Invisible-only text is empty; names carry no control or bidi-override characters."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.visible_text import has_visible_text, unsafe_name_character


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \t\n",
        "\u200b",  # zero-width space
        "\u200b\u200c\u200d\u2060\ufeff",  # zero-width joiners, word joiner, BOM
        " \u00a0\u3000\u2028\u2029",  # no-break, ideographic space, line and paragraph separators
        "\u202e\u202d\u2066\u2069",  # bidi overrides and isolates
        "\x00\x01\x7f",  # controls
        "\u3164\u115f\u2800",  # hangul fillers, braille blank
        "\u00ad\u180e",  # soft hyphen, mongolian vowel separator
        "\u0301\u0308",  # combining accents alone (Mn)
        "\u20dd",  # a combining enclosing circle alone (Me)
    ],
)
def test_invisible_only_text_is_not_visible(text: str) -> None:
    assert not has_visible_text(text)


@pytest.mark.parametrize("text", ["a", " x ", "\u200bhi", "日本", "🙂", "é", "0", "\u202eabc"])
def test_any_visible_character_makes_text_visible(text: str) -> None:
    assert has_visible_text(text)


@given(st.text(alphabet=st.characters(categories=["L", "N", "P", "S"]), min_size=1))
def test_letters_digits_punctuation_and_symbols_are_visible(text: str) -> None:
    assert has_visible_text(text) or set(text) <= {"\u3164", "\u115f", "\u1160", "\uffa0", "\u2800"}


@pytest.mark.parametrize(
    ("name", "bad"),
    [
        ("ana\x00", "U+0000"),
        ("ana\nbo", "U+000A"),
        ("ana\u202eevil", "U+202E"),
        ("\u2066ana", "U+2066"),
        ("an\u200ba", "U+200B"),
        ("a\x1b[31m", "U+001B"),
    ],
)
def test_names_refuse_control_format_and_bidi_characters(name: str, bad: str) -> None:
    assert unsafe_name_character(name) == bad


@pytest.mark.parametrize("name", ["ana", "Ana María", "team-apollo_2", "日本 チーム", "o'brien"])
def test_ordinary_names_are_fine(name: str) -> None:
    assert unsafe_name_character(name) is None
