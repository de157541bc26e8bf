"""A source's history in sentences: newest first, runs collapsed, refusals in words."""

from datetime import UTC, datetime, timedelta

from domain.lifecycle import CorrectionAction
from domain.models import CorrectionRecord
from entrypoints.web.history import Receipt, history

_T0 = datetime(2026, 3, 3, 9, 0, tzinfo=UTC)


def _at(minutes: int) -> datetime:
    return _T0 + timedelta(minutes=minutes)


def test_reads_become_sentences_newest_first_with_runs_collapsed() -> None:
    receipts = [
        Receipt("search", "api", True, "allowed", _at(5)),
        Receipt("search", "api", True, "allowed", _at(4)),
        Receipt("search", "api", True, "allowed", _at(3)),
        Receipt("workspace_activity", "web", True, "allowed", _at(2)),
        Receipt("remember", "web", True, "allowed", _at(0)),
    ]
    events = history([], receipts)
    assert [e.text for e in events] == [
        "Found by a search through the API",
        "Listed among recent captures in the workspace",
        "Remembered in the workspace",
    ]
    assert events[0].times == 3 and events[0].at == _at(5) and events[0].since == _at(3)


def test_corrections_are_said_once_and_refusals_say_why() -> None:
    corrections = [
        CorrectionRecord(
            action=CorrectionAction.HIDE, actor_id="u", at=_at(7) - timedelta(seconds=1), version=2
        ),
        CorrectionRecord(
            action=CorrectionAction.MARK_STALE, actor_id="u", at=_at(1), version=1, reason="old"
        ),
    ]
    receipts = [
        Receipt("hide", "web", True, "allowed", _at(7)),
        Receipt("preview_hide", "web", True, "allowed", _at(6)),
        Receipt("delete", "api", False, "insufficient_role", _at(5)),
        Receipt("some_new_thing", "mcp", True, "allowed", _at(4)),
    ]
    texts = [e.text for e in history(corrections, receipts)]
    assert texts == [
        "Corrected: Hide in the workspace",
        "Previewed “Hide” in the workspace",
        "“Delete for good” refused through the API: Your role in that space does not allow this",
        "Some new thing by an agent",
        "Corrected: Mark as stale (old)",
    ]


def test_interleaved_reads_are_one_line_each_and_corrections_keep_their_order() -> None:
    receipts = [
        Receipt("context", "web", True, "allowed", _at(9)),
        Receipt("search", "web", True, "allowed", _at(9)),
        Receipt("hide", "web", True, "allowed", _at(8)),
        Receipt("restore", "web", True, "allowed", _at(7)),
        Receipt("hide", "web", True, "allowed", _at(6)),
        Receipt("context", "web", True, "allowed", _at(5)),
        Receipt("search", "web", True, "allowed", _at(5)),
    ]
    events = history([], receipts)
    assert [(e.text, e.times) for e in events] == [
        ("Put in a context pack in the workspace", 2),
        ("Found by a search in the workspace", 2),
        ("Corrected: Hide in the workspace", 1),
        ("Corrected: Restore in the workspace", 1),
        ("Corrected: Hide in the workspace", 1),
    ]
