"""Filling a token budget greedily, and trimming a rendering back under it."""

import pytest

from domain.budget import fill_budget, trim_to_budget


def _fill(costs: list[int], budget: int) -> list[int]:
    return fill_budget(range(len(costs)), lambda n, _opens: costs[n], budget)


def test_takes_offers_in_order_until_the_budget() -> None:
    assert _fill([40, 50, 20], 100) == [0, 1]


def test_skips_an_offer_that_does_not_fit_but_keeps_smaller_later_ones() -> None:
    assert _fill([60, 50, 30], 100) == [0, 2]


def test_exact_fit_and_zero_budget() -> None:
    assert _fill([100], 100) == [0]
    assert _fill([1], 0) == []
    assert _fill([0], 0) == [0]
    with pytest.raises(ValueError, match=r"^a budget is not negative$"):
        _fill([], -1)


def test_a_group_is_opened_by_the_first_offer_taken_from_it() -> None:
    groups = ["a", "a", "b", "a"]
    opening: list[bool] = []

    def cost(n: int, opens: bool) -> int:
        opening.append(opens)
        return [50, 10, 10, 10][n] + (5 if opens else 0)

    # "a" (55) is passed over; its second offer (15) opens it instead, the last pays no heading
    assert fill_budget(groups, cost, 40) == [1, 2, 3]
    assert opening == [True, True, True, False]


def test_trim_drops_the_last_taken_while_the_rendering_is_over() -> None:
    def render(kept: list[str]) -> str:
        return " ".join(kept)

    assert trim_to_budget(["aa", "bb", "cc"], render, len, 5) == (["aa", "bb"], "aa bb")
    assert trim_to_budget(["aaaaaa"], render, len, 5) == ([], "")
    assert trim_to_budget([], render, len, 0) == ([], "")
