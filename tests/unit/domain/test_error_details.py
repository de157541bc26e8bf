"""Error details are bounded whatever they quote."""

from domain.errors import MAX_DETAIL_CHARS, InvalidInputError, bounded_detail
from domain.reasons import ReasonCode


def test_a_short_detail_is_kept_as_is() -> None:
    assert bounded_detail("limit must be between 1 and 100") == "limit must be between 1 and 100"
    assert bounded_detail("x" * MAX_DETAIL_CHARS) == "x" * MAX_DETAIL_CHARS


def test_a_long_detail_is_cut_with_an_ellipsis() -> None:
    cut = bounded_detail("n" * 1_000_000)
    assert len(cut) == MAX_DETAIL_CHARS and cut.endswith("…")
    assert bounded_detail("abcdef", 4) == "abc…"


def test_every_error_carries_a_bounded_detail() -> None:
    error = InvalidInputError(ReasonCode.INVALID_REQUEST, f"no principal {'p' * 10_000!r}")
    assert len(error.detail) == MAX_DETAIL_CHARS
    assert len(str(error)) < MAX_DETAIL_CHARS + 40
