"""The sentencex adapter: offsets into the text as given, and nothing dropped or misplaced."""

from typing import Any

import pytest
import sentencex

from adapters.text.sentences import SentencexSegmenter


def _pieces(text: str) -> list[str]:
    return [text[start:end] for start, end in SentencexSegmenter().sentences(text)]


def test_sentences_cover_the_line_and_keep_tokens_with_dots_whole() -> None:
    text = "Ship Tessera 1.0 via api.example.com, e.g. on Friday. Dr. Okafor agreed. Done!"
    assert _pieces(text) == [
        "Ship Tessera 1.0 via api.example.com, e.g. on Friday. ",
        "Dr. Okafor agreed. ",
        "Done!",
    ]


def test_offsets_count_characters_not_bytes() -> None:
    text = "Zoë sent 😀 the café notes. Ünïcode is fine. e\u0301 too."
    pieces = _pieces(text)
    assert "".join(pieces) == text and len(pieces) == 3
    assert pieces[1] == "Ünïcode is fine. "


def test_a_blank_line_has_no_sentences() -> None:
    assert SentencexSegmenter().sentences("") == []
    assert SentencexSegmenter().sentences("   \t") == []


def test_offsets_that_do_not_match_are_found_from_the_last_boundary(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = sentencex.get_sentence_boundaries

    def shifted(language: str, text: str) -> list[dict[str, Any]]:
        return [{**b, "start_index": b["start_index"] + 1} for b in real(language, text)]

    monkeypatch.setattr(sentencex, "get_sentence_boundaries", shifted)
    assert _pieces("One is here. Two is there.") == ["One is here. ", "Two is there."]


def test_a_sentence_it_cannot_place_leaves_the_line_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    def foreign(language: str, text: str) -> list[dict[str, Any]]:
        return [{"start_index": 0, "end_index": 5, "text": "not in the text"}]

    monkeypatch.setattr(sentencex, "get_sentence_boundaries", foreign)
    assert _pieces("One is here. Two is there.") == ["One is here. Two is there."]
