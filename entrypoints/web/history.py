"""A source's history as sentences: newest first, repeated events said once with a count.

Why: the source page listed the raw audit log ("workspace_activity via web ·
allowed", twenty lines on one note). A person wants what happened to it and
through which door: remembered, opened, found by searches, corrected. The
corrections kept on the source and the receipts naming it are merged, each in
words, and a run of the same event is one line ("Found by a search, 6 times").
Pure: it reads only what the page already holds.
"""

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import NamedTuple

from domain.lifecycle import CorrectionAction
from domain.models import CorrectionRecord
from entrypoints.web.words import ACTION_LABELS, SURFACE_WORDS, reason_words

__all__ = ["Event", "Receipt", "history"]

_READS = {
    "remember": "Remembered",
    "inspect": "Opened",
    "search": "Found by a search",
    "context": "Put in a context pack",
    "workspace_activity": "Listed among recent captures",
    "reflect": "Read to suggest records for review",
    "synthesize": "Read for a draft",
    "synthesize_run": "Read for a draft",
    "export": "Exported",
    "access_preview": "Counted in an access preview",
}


#: a correction and its receipt are written moments apart: within this, they are one event
_SAME = timedelta(minutes=1)


_READ_WORDS = tuple(_READS.values())


class Receipt(NamedTuple):
    """What the history reads of an audit receipt (``AuditReceipt`` has these fields)."""

    action: str
    surface: str
    allowed: bool
    reason: str
    at: datetime


class Event(NamedTuple):
    text: str
    #: the newest time it happened, and how many times in this run
    at: datetime
    times: int = 1
    #: the oldest time of the run
    since: datetime | None = None


def _correction_words(action: str, allowed: bool) -> str | None:
    preview = action.startswith("preview_")
    try:
        label = ACTION_LABELS[CorrectionAction(action.removeprefix("preview_"))]
    except ValueError:
        return None
    if preview:
        return f"Previewed “{label}”"
    return f"Corrected: {label}" if allowed else f"“{label}”"


def _receipt_words(receipt: Receipt) -> str:
    said = _READS.get(receipt.action) or _correction_words(receipt.action, receipt.allowed)
    said = said or receipt.action.replace("_", " ").capitalize()
    where = SURFACE_WORDS.get(f"{receipt.surface}", f"{receipt.surface}")
    if not receipt.allowed:
        return f"{said} refused {where}: {reason_words(receipt.reason).rstrip('.')}"
    return f"{said} {where}"


def history(corrections: Iterable[CorrectionRecord], receipts: Iterable[Receipt]) -> list[Event]:
    """Newest first; a run of the same words is one event with its count and span."""
    receipts = list(receipts)
    said = [(r.at, _receipt_words(r)) for r in receipts]
    # an applied correction is kept on the source and also leaves a receipt: say it once
    applied = [(r.action, r.at) for r in receipts if r.allowed]
    for c in corrections:
        if not any(a == c.action and abs(at - c.at) < _SAME for a, at in applied):
            text = f"Corrected: {ACTION_LABELS.get(c.action, c.action)}"
            said.append((c.at, text + (f" ({c.reason})" if c.reason else "")))
    said.sort(key=lambda pair: pair[0], reverse=True)
    events: list[Event] = []
    reads: dict[str, int] = {}  # a read's words -> its event's place
    for at, text in said:
        # reads (searches, opens, packs) interleave: each kind is one line wherever it falls;
        # a correction repeats only when it follows itself (hide, restore, hide stays three)
        place = reads.get(text) if _is_read(text) else None
        if place is None and events and events[-1].text == text:
            place = len(events) - 1
        if place is None:
            if _is_read(text):
                reads[text] = len(events)
            events.append(Event(text=text, at=at))
        else:
            events[place] = events[place]._replace(times=events[place].times + 1, since=at)
    return events


def _is_read(text: str) -> bool:
    return text.startswith(_READ_WORDS) and " refused " not in text
