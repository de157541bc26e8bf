"""The wake pack's budget sharing: round-robin over sections, headings paid once."""

import pytest

from domain.reflection.candidates import CandidateType
from domain.wake import WakeSection, section_of, share_budget

S = WakeSection


def test_sections_take_turns_so_one_cannot_crowd_out_the_rest() -> None:
    costs = {S.DECISIONS: [10] * 10, S.TASKS: [10, 10], S.RECENT: [10]}
    taken = share_budget(costs, {}, 60)
    assert taken == {S.DECISIONS: [0, 1, 2], S.TASKS: [0, 1], S.RECENT: [0]}


def test_headings_are_paid_once_and_items_that_do_not_fit_are_passed_over() -> None:
    costs = {S.DECISIONS: [50, 5], S.TASKS: [5]}
    heads = {S.DECISIONS: 3, S.TASKS: 3}
    # decisions[0] + heading = 53; tasks[0] + heading = 8; decisions[1] = 5 -> 66 > 64
    assert share_budget(costs, heads, 64) == {S.DECISIONS: [0], S.TASKS: [0]}
    assert share_budget(costs, heads, 66) == {S.DECISIONS: [0, 1], S.TASKS: [0]}
    # the long one passed over, the short one after it taken
    assert share_budget(costs, heads, 20) == {S.DECISIONS: [1], S.TASKS: [0]}
    assert share_budget(costs, heads, 0) == {}
    assert share_budget({}, heads, 100) == {}
    with pytest.raises(ValueError, match=r"^a budget is not negative$"):
        share_budget(costs, heads, -1)


def test_which_records_are_wake_material() -> None:
    assert section_of(CandidateType.DECISION) is S.DECISIONS
    assert section_of(CandidateType.TASK) is S.TASKS
    assert section_of(CandidateType.PREFERENCE) is S.PREFERENCES
    assert section_of(CandidateType.EVENT) is S.RECENT
    assert section_of(CandidateType.PERSON) is None
