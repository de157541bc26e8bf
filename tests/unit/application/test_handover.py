"""``short_switches``: the interpreter's switch interval is short while a block holds it,
and what it was once the last of overlapping holders is done."""

import sys

import pytest

from application.retrieval.handover import SHORT_SWITCH_S, short_switches


def test_the_interval_is_short_inside_and_put_back_after() -> None:
    before = sys.getswitchinterval()
    with short_switches():
        assert sys.getswitchinterval() == pytest.approx(SHORT_SWITCH_S)
    assert sys.getswitchinterval() == before


def test_overlapping_holders_put_it_back_only_when_the_last_is_done() -> None:
    before = sys.getswitchinterval()
    first, second = short_switches(), short_switches()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert sys.getswitchinterval() == pytest.approx(SHORT_SWITCH_S)  # the second still reads ahead
    second.__exit__(None, None, None)
    assert sys.getswitchinterval() == before


def test_an_error_inside_still_puts_it_back() -> None:
    before = sys.getswitchinterval()
    try:
        with short_switches():
            raise ValueError("a leg failed")
    except ValueError:
        pass
    assert sys.getswitchinterval() == before
