"""The CLI's printed hits and pack items name the speaker when a turn has one."""

import pytest

from entrypoints import cli


def _hit(text: str, speaker: str | None) -> dict[str, object]:
    return {
        "source_id": "s1",
        "score": 0.5,
        "signals": {"lexical_rank": 1},
        "text": text,
        "speaker": speaker,
        "reason": "matched words",
    }


def test_hits_and_items_are_printed_with_their_speaker(capsys: pytest.CaptureFixture[str]) -> None:
    cli._print_search({"results": [_hit("Yes!! Pixel.", "Maya"), _hit("A note.", None)]})
    out = capsys.readouterr().out.splitlines()
    assert out[1] == "   Maya: Yes!! Pixel."
    assert out[3] == "   A note."
    pack = {"token_count": 5, "token_budget": 2000, "encoding": "cl100k_base", "omitted": 0}
    cli._print_context({**pack, "items": [_hit("Yes!! Pixel.", "Maya")]})
    assert capsys.readouterr().out.rstrip().endswith("\nMaya: Yes!! Pixel.")
