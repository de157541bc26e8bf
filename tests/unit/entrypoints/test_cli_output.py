"""What the CLI prints for a person: hits best first, their state and id; a readable source."""

from typing import Any

import pytest

from entrypoints.recall_output import print_context, print_search, print_source


def _hit(text: str, speaker: str | None = None, **extra: Any) -> dict[str, Any]:
    return {
        "source_id": "s1",
        "score": 0.5,
        "signals": {"lexical_rank": 1},
        "text": text,
        "speaker": speaker,
        "reason": "matched words",
        "scope": "private",
        "occurred_at": "2024-03-05T09:30:00Z",
        "lifecycle": "active",
        **extra,
    }


def test_hits_are_numbered_with_their_speaker_and_a_line_about_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    print_search({"results": [_hit("Yes!!  Pixel.", "Maya"), _hit("A note.")]}, "which phone")
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "2 results for “which phone”"
    assert out[2] == " 1. Maya: Yes!! Pixel."
    assert out[3] == "    private · 5 Mar 2024 09:30 · source s1"
    assert out[5] == " 2. A note."
    assert "0.5" not in "\n".join(out)  # scores are for --json


def test_superseded_stale_and_withheld_are_said(capsys: pytest.CaptureFixture[str]) -> None:
    hits = [
        _hit("Old plan.", lifecycle="superseded", superseded_by="s9"),
        _hit("Older plan.", stale=True, occurred_at=None, created_at="2024-01-02T00:00:00Z"),
    ]
    print_search({"results": hits, "withheld": 2, "withheld_redacted": 1}, "plan")
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (
        "2 results for “plan”; 2 withheld (you may not read them); "
        "1 redacted source(s) match, not shown"
    )
    assert "SUPERSEDED by s9" in out[3] and "superseded ·" not in out[3]
    assert out[6] == "    private · remembered 2 Jan 2024 00:00 · STALE · source s1"


def test_nothing_matched_and_nothing_relevant(capsys: pytest.CaptureFixture[str]) -> None:
    print_search({"results": []}, "x")
    assert capsys.readouterr().out == "No memories matched for “x”\n"
    print_search({"results": [], "reason": "nothing_relevant", "below_floor": 3}, "x")
    assert capsys.readouterr().out.startswith("Nothing relevant")


def test_pack_items_name_the_speaker(capsys: pytest.CaptureFixture[str]) -> None:
    pack = {"token_count": 5, "token_budget": 2000, "encoding": "cl100k_base", "omitted": 0}
    print_context({**pack, "items": [_hit("Yes!! Pixel.", "Maya")], "withheld": 1})
    out = capsys.readouterr().out
    assert out.startswith("Context pack: 5 of 2000 tokens (cl100k_base), 1 items, 0 left out; 1 ")
    assert out.rstrip().endswith("\nMaya: Yes!! Pixel.")


def test_a_source_reads_as_state_text_corrections_and_activity(
    capsys: pytest.CaptureFixture[str],
) -> None:
    receipt = {"surface": "mcp", "allowed": True, "at": "2024-03-06T10:00:00Z"}
    print_source(
        {
            "source_id": "s1",
            "source_type": "email",
            "version": 2,
            "lifecycle": "active",
            "marks": ["stale"],
            "created_at": "2024-03-05T09:30:00Z",
            "occurred_at": "2024-03-01T08:00:00Z",
            "metadata": {"from": ["Ana <ana@example.org>"], "subject": "Budget"},
            "visible_because": "private: your own memory",
            "visibility": {"space": "private/u1", "readers": ["its owner"]},
            "content": "The budget review is on Tuesday.",
            "derived": [{"chunk_id": "c1"}],
            "corrections": [
                {"action": "mark_stale", "at": "2024-03-06T09:00:00Z", "reason": "moved"}
            ],
            "actions": [{"action": "hide"}, {"action": "delete"}],
            "receipts": [
                {**receipt, "action": "search"},
                {**receipt, "action": "search", "at": "2024-03-05T10:00:00Z"},
                {**receipt, "action": "inspect", "surface": "web", "allowed": False},
            ],
        }
    )
    out = capsys.readouterr().out
    assert out.startswith("Email · 1 Mar 2024 08:00 · remembered 5 Mar 2024 09:30\n")
    assert "From: Ana <ana@example.org>\n" in out and "[" not in out  # no Python list syntax
    assert "Marked: stale" in out and "\nThe budget review is on Tuesday.\n" in out
    assert "  6 Mar 2024 09:00: mark stale: moved" in out
    assert "search through MCP: 2 times, last 6 Mar 2024 10:00" in out
    assert "inspect through the workspace, refused: once" in out
    assert "(tessera correct s1 ACTION)" in out and "{" not in out
