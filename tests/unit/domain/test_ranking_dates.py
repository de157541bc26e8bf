"""Every date phrase the ranker reads, with the exact window and confidence it yields."""

from datetime import UTC, date, datetime, timedelta

import pytest

from domain.ranking.dates import DateWindow, date_score, date_window

WEDNESDAY = datetime(2031, 7, 16, 18, 0, tzinfo=UTC)
TODAY = WEDNESDAY.date()


def _around(day: date, slack: int, confidence: float) -> DateWindow:
    return DateWindow(
        start=day - timedelta(days=slack), end=day + timedelta(days=slack), confidence=confidence
    )


def test_distance_is_zero_inside_and_counts_days_outside() -> None:
    window = DateWindow(start=date(2031, 7, 10), end=date(2031, 7, 12), confidence=0.8)
    assert window.distance_days(date(2031, 7, 10)) == 0
    assert window.distance_days(date(2031, 7, 12)) == 0
    assert window.distance_days(date(2031, 7, 7)) == 3
    assert window.distance_days(date(2031, 7, 14)) == 2


def test_date_score_fades_linearly_outside_the_window() -> None:
    window = DateWindow(start=date(2031, 7, 10), end=date(2031, 7, 12), confidence=0.8)
    assert date_score(window, date(2031, 7, 11), 4) == pytest.approx(0.8)
    assert date_score(window, date(2031, 7, 14), 4) == pytest.approx(0.4)
    assert date_score(window, date(2031, 7, 20), 4) == 0.0
    assert date_score(window, date(2031, 7, 13), 0) == 0.0
    assert date_score(window, date(2031, 7, 13), 2) == pytest.approx(0.4)
    assert date_score(None, date(2031, 7, 11), 4) == 0.0
    assert date_score(window, None, 4) == 0.0


@pytest.mark.parametrize(
    ("question", "asked_at", "expected"),
    [
        ("notes from 2031-07-04?", None, _around(date(2031, 7, 4), 1, 0.9)),
        ("notes from 2031/7/4?", WEDNESDAY, _around(date(2031, 7, 4), 1, 0.9)),
        ("notes from 2031-13-40?", WEDNESDAY, None),
        # dots put the day first
        ("the 04.07.2031 meeting", None, _around(date(2031, 7, 4), 1, 0.9)),
        ("the 04.07.31 meeting", None, _around(date(2031, 7, 4), 1, 0.9)),
        ("the 31.02.2031 meeting", None, None),
        # a number over 12 decides the order
        ("the 13/07/2031 meeting", None, _around(date(2031, 7, 13), 1, 0.9)),
        ("the 07-13-2031 meeting", None, _around(date(2031, 7, 13), 1, 0.9)),
        # both readings possible: month first, less sure
        ("the 03/04/2031 meeting", None, _around(date(2031, 3, 4), 1, 0.5)),
        ("the 05/05/2031 meeting", None, _around(date(2031, 5, 5), 1, 0.9)),
        # the reading after the question drops out
        ("the 08/03/2031 meeting", WEDNESDAY, _around(date(2031, 3, 8), 1, 0.9)),
        ("the 08/03/2031 meeting", None, _around(date(2031, 8, 3), 1, 0.5)),
        # both after the question: both kept
        ("the 08/09/2031 meeting", WEDNESDAY, _around(date(2031, 8, 9), 1, 0.5)),
        ("what did I do yesterday?", WEDNESDAY, _around(date(2031, 7, 15), 1, 0.8)),
    ],
)
def test_explicit_dates(question: str, asked_at: datetime | None, expected: DateWindow) -> None:
    assert date_window(question, asked_at) == expected


@pytest.mark.parametrize(
    ("phrase", "days", "slack"),
    [
        ("3 days ago", 3, 2),
        ("a day ago", 1, 2),
        ("an week ago", 7, 2),
        ("one week ago", 7, 2),
        ("two weeks ago", 14, 2),
        ("three weeks ago", 21, 4),
        ("four days ago", 4, 2),
        ("five days ago", 5, 2),
        ("six days ago", 6, 2),
        ("seven days ago", 7, 2),
        ("eight days ago", 8, 2),
        ("nine days ago", 9, 2),
        ("ten days ago", 10, 2),
        ("couple of weeks ago", 14, 2),
        ("few weeks ago", 21, 4),
        ("a month ago", 30, 6),
        ("a year ago", 365, 73),
    ],
)
def test_ago_points_that_far_back_with_slack_growing_with_distance(
    phrase: str, days: int, slack: int
) -> None:
    expected = _around(TODAY - timedelta(days=days), slack, 0.7)
    assert date_window(f"who did I meet {phrase}?", WEDNESDAY) == expected


@pytest.mark.parametrize(
    ("phrase", "days"),
    [
        ("last 2 months", 60),
        ("past two weeks", 14),
        ("previous three days", 3),
        ("last four days", 4),
        ("last five days", 5),
        ("last six days", 6),
        ("last seven days", 7),
        ("last eight days", 8),
        ("last nine days", 9),
        ("last ten days", 10),
        ("last few years", 3 * 365),
        ("last couple of weeks", 14),
    ],
)
def test_last_span_runs_from_that_far_back_to_today(phrase: str, days: int) -> None:
    expected = DateWindow(start=TODAY - timedelta(days=days), end=TODAY, confidence=0.5)
    assert date_window(f"what did I buy in the {phrase}?", WEDNESDAY) == expected


@pytest.mark.parametrize(
    ("weekday", "back"),
    [
        ("monday", 2),
        ("tuesday", 1),
        ("wednesday", 7),
        ("thursday", 6),
        ("friday", 5),
        ("saturday", 4),
        ("sunday", 3),
    ],
)
def test_last_weekday_is_the_latest_one_before_today(weekday: str, back: int) -> None:
    expected = _around(TODAY - timedelta(days=back), 1, 0.8)
    assert date_window(f"what did I cook last {weekday.title()}?", WEDNESDAY) == expected


@pytest.mark.parametrize(
    ("phrase", "day"),
    [
        ("March 3rd", date(2031, 3, 3)),
        ("Dec. 25", date(2030, 12, 25)),
        ("jul 16", date(2031, 7, 16)),
        ("July 17", date(2030, 7, 17)),
        ("2nd of September", date(2030, 9, 2)),
        ("21st jan", date(2031, 1, 21)),
        ("feb 1", date(2031, 2, 1)),
        ("mar 1", date(2031, 3, 1)),
        ("apr 1", date(2031, 4, 1)),
        ("may 1", date(2031, 5, 1)),
        ("june 1", date(2031, 6, 1)),
        ("aug 1", date(2030, 8, 1)),
        ("sept 1", date(2030, 9, 1)),
        ("sep 2", date(2030, 9, 2)),
        ("oct 1", date(2030, 10, 1)),
        ("nov 1", date(2030, 11, 1)),
        ("1 january", date(2031, 1, 1)),
        ("1 february", date(2031, 2, 1)),
        ("1 april", date(2031, 4, 1)),
        ("1 jun", date(2031, 6, 1)),
        ("1 august", date(2030, 8, 1)),
        ("1 october", date(2030, 10, 1)),
        ("1 november", date(2030, 11, 1)),
        ("1 december", date(2030, 12, 1)),
    ],
)
def test_named_day_is_the_latest_one_not_after_today(phrase: str, day: date) -> None:
    assert date_window(f"what happened on {phrase}?", WEDNESDAY) == _around(day, 1, 0.8)


def test_impossible_named_day_gives_no_window() -> None:
    assert date_window("what happened on feb 30?", WEDNESDAY) is None
    assert date_window("what happened on feb 29?", WEDNESDAY) is None


@pytest.mark.parametrize(("unit", "days"), [("week", 7), ("month", 30), ("year", 365)])
def test_last_unit_reaches_back_two_of_them(unit: str, days: int) -> None:
    expected = DateWindow(start=TODAY - timedelta(days=2 * days), end=TODAY, confidence=0.4)
    assert date_window(f"what did I read last {unit}?", WEDNESDAY) == expected


@pytest.mark.parametrize(
    ("asked", "saturday"),
    [
        (WEDNESDAY, date(2031, 7, 12)),
        (datetime(2031, 7, 19, 9, 0, tzinfo=UTC), date(2031, 7, 12)),
        (datetime(2031, 7, 20, 9, 0, tzinfo=UTC), date(2031, 7, 19)),
    ],
)
def test_last_weekend_is_the_saturday_and_sunday_before(asked: datetime, saturday: date) -> None:
    expected = DateWindow(start=saturday, end=saturday + timedelta(days=1), confidence=0.7)
    assert date_window("what did we do last weekend?", asked) == expected


@pytest.mark.parametrize(
    ("month", "first", "last"),
    [
        ("december", date(2030, 12, 1), date(2030, 12, 31)),
        ("july", date(2031, 7, 1), date(2031, 7, 31)),
        ("february", date(2031, 2, 1), date(2031, 2, 28)),
        ("sept", date(2030, 9, 1), date(2030, 9, 30)),
    ],
)
def test_in_month_covers_its_latest_occurrence(month: str, first: date, last: date) -> None:
    expected = DateWindow(start=first, end=last, confidence=0.6)
    assert date_window(f"which plays did I see in {month}?", WEDNESDAY) == expected


def test_short_month_names_alone_are_too_ambiguous_to_read() -> None:
    # "in may" / "in mar" read as words as often as months
    assert date_window("which plays did I see in may?", WEDNESDAY) is None
    assert date_window("which plays did I see in jan?", WEDNESDAY) is None


def test_relative_phrases_need_the_moment_asked() -> None:
    for phrase in ("yesterday", "3 days ago", "last week", "last friday", "in march", "jul 4"):
        assert date_window(f"what happened {phrase}?", None) is None


def test_a_numeric_reading_on_the_day_asked_counts_as_not_after_it() -> None:
    asked = datetime(2031, 3, 4, 9, 0, tzinfo=UTC)
    assert date_window("the 03/04/2031 meeting", asked) == _around(date(2031, 3, 4), 1, 0.9)
