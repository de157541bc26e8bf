"""Dates a question points at, parsed against the moment it is asked.

"What did I cook last Saturday?" asked on a Wednesday is about one day;
"two weeks ago" about a few days either side of a point; "in March" about a
month. The ranker prefers episodes that happened inside that window, so
only phrases with a clear reading are parsed and anything else yields None
(no temporal preference rather than a wrong one).
"""

import re
from datetime import date, datetime, timedelta

import msgspec

__all__ = ["DateWindow", "date_score", "date_window"]

_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "couple of": 2,
    "few": 3,
}
_MONTHS = {
    name: n
    for n, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}

_AGO = re.compile(
    r"\b(\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|couple of|few)\s+"
    r"(day|week|month|year)s?\s+ago\b"
)
_LAST_SPAN = re.compile(
    r"\b(?:last|past|previous)\s+(\d+|two|three|four|five|six|seven|eight|nine|ten|few|couple of)"
    r"\s+(day|week|month|year)s\b"
)
_LAST_UNIT = re.compile(r"\b(?:last|past|previous)\s+(week|month|year|weekend)\b")
_LAST_WEEKDAY = re.compile(r"\blast\s+(" + "|".join(_WEEKDAYS) + r")\b")
_MONTH_DAY = re.compile(
    r"\b("
    + "|".join(sorted(_MONTHS, key=len, reverse=True))
    + r")\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b"
)
_DAY_MONTH = re.compile(
    r"\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?("
    + "|".join(sorted(_MONTHS, key=len, reverse=True))
    + r")\b"
)
_IN_MONTH = re.compile(r"\bin\s+(" + "|".join(m for m in _MONTHS if len(m) > 3) + r")\b")
_ISO = re.compile(r"\b(\d{4})[/-](\d{1,2})[/-](\d{1,2})\b")
#: "01.02.2024", "1/2/24", "01-02-2024": day and month in an order the separator hints at
_NUMERIC = re.compile(r"\b(\d{1,2})([./-])(\d{1,2})\2(\d{4}|\d{2})\b")


class DateWindow(msgspec.Struct, frozen=True, kw_only=True):
    """Inclusive days the question points at, and how sure the reading is (0..1)."""

    start: date
    end: date
    confidence: float

    def distance_days(self, day: date) -> int:
        if day < self.start:
            return (self.start - day).days
        if day > self.end:
            return (day - self.end).days
        return 0


def date_score(window: DateWindow | None, day: date | None, fade: int) -> float:
    """How far inside the question's window a day is: its confidence inside, fading to
    nothing over ``fade`` days outside; 0 without a window or a day."""
    if window is None or day is None:
        return 0.0
    return window.confidence * max(0.0, 1.0 - window.distance_days(day) / max(fade, 1))


def _window(center: date, slack: int, confidence: float) -> DateWindow:
    return DateWindow(
        start=center - timedelta(days=slack),
        end=center + timedelta(days=slack),
        confidence=confidence,
    )


def _past(month: int, day: int, today: date) -> date | None:
    """The latest date with this month and day not after today."""
    for year in (today.year, today.year - 1):
        try:
            candidate = date(year, month, day)
        except ValueError:
            return None
        if candidate <= today:
            return candidate
    return None


def _numeric(match: re.Match[str], today: date | None) -> DateWindow | None:
    """A numeric date. Dots write the day first (as in most of Europe); with slashes or
    dashes either order is in use, so a number over 12 decides, then the reading that is
    not after the question; if both remain, month first, with less confidence."""
    first, sep, second, year_text = int(match[1]), match[2], int(match[3]), match[4]
    year = int(year_text) + (2000 if len(year_text) == 2 else 0)
    orders = [(second, first)] if sep == "." else [(first, second), (second, first)]
    readings: list[date] = []
    for month, day in orders:
        try:
            readings.append(date(year, month, day))
        except ValueError:
            continue
    if today is not None and len(readings) > 1:
        readings = [d for d in readings if d <= today] or readings
    if not readings:
        return None
    return _window(readings[0], 1, 0.9 if len(set(readings)) == 1 else 0.5)


def date_window(question: str, asked_at: datetime | None) -> DateWindow | None:
    """The window a question's date phrase points at, or None when it names none."""
    text = question.lower()
    if match := _ISO.search(text):
        try:
            day = date(int(match[1]), int(match[2]), int(match[3]))
        except ValueError:
            return None
        return _window(day, 1, 0.9)
    if match := _NUMERIC.search(text):
        return _numeric(match, None if asked_at is None else asked_at.date())
    if asked_at is None:
        return None
    today = asked_at.date()
    if "yesterday" in text:
        return _window(today - timedelta(days=1), 1, 0.8)
    if match := _AGO.search(text):
        amount = int(match[1]) if match[1].isdigit() else _NUMBERS[match[1]]
        days = amount * _UNIT_DAYS[match[2]]
        return _window(today - timedelta(days=days), max(2, days // 5), 0.7)
    if match := _LAST_SPAN.search(text):
        amount = int(match[1]) if match[1].isdigit() else _NUMBERS[match[1]]
        days = amount * _UNIT_DAYS[match[2]]
        return DateWindow(start=today - timedelta(days=days), end=today, confidence=0.5)
    if match := _LAST_WEEKDAY.search(text):
        back = (today.weekday() - _WEEKDAYS.index(match[1])) % 7 or 7
        return _window(today - timedelta(days=back), 1, 0.8)
    if match := (_MONTH_DAY.search(text) or _DAY_MONTH.search(text)):
        month_name, day_text = (
            (match[1], match[2]) if match.re is _MONTH_DAY else (match[2], match[1])
        )
        named = _past(_MONTHS[month_name], int(day_text), today)
        return None if named is None else _window(named, 1, 0.8)
    if match := _LAST_UNIT.search(text):
        unit = match[1]
        if unit == "weekend":
            back = (today.weekday() - 5) % 7 or 7
            return DateWindow(
                start=today - timedelta(days=back),
                end=today - timedelta(days=back - 1),
                confidence=0.7,
            )
        days = _UNIT_DAYS[unit]
        return DateWindow(start=today - timedelta(days=days * 2), end=today, confidence=0.4)
    if match := _IN_MONTH.search(text):
        first = _past(_MONTHS[match[1]], 1, today)
        if first is None:
            return None
        nxt = date(first.year + (first.month == 12), first.month % 12 + 1, 1)
        return DateWindow(start=first, end=nxt - timedelta(days=1), confidence=0.6)
    return None
