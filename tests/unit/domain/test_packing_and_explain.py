import pytest

from domain.explain import inclusion_reason
from domain.packing import PackCandidate, select_within_budget


def _c(item_id: str, tokens: int) -> PackCandidate:
    return PackCandidate(item_id=item_id, token_count=tokens)


def test_takes_items_in_order_until_the_budget() -> None:
    sel = select_within_budget([_c("a", 40), _c("b", 50), _c("c", 20)], 100)
    assert sel.chosen == ["a", "b"]
    assert sel.token_count == 90
    assert sel.skipped_over_budget == 1


def test_skips_an_item_that_does_not_fit_but_keeps_smaller_later_ones() -> None:
    sel = select_within_budget([_c("a", 60), _c("big", 50), _c("small", 30)], 100)
    assert sel.chosen == ["a", "small"]
    assert sel.token_count == 90


def test_exact_fit_and_zero_budget() -> None:
    assert select_within_budget([_c("a", 100)], 100).chosen == ["a"]
    assert select_within_budget([_c("a", 1)], 0).chosen == []
    with pytest.raises(ValueError, match=r"^budget must be >= 0$"):
        select_within_budget([], -1)
    with pytest.raises(ValueError, match=r"^token_count must be >= 0$"):
        _c("a", -1)


def test_reason_names_each_signal_and_rank_best_first() -> None:
    assert inclusion_reason({"vector": 3, "lexical": 1}) == (
        "matched the query's words (rank 1); close in meaning to the query (rank 3)"
    )
    assert inclusion_reason({}) == "no retrieval signal"
    assert inclusion_reason({"future_signal": 2}) == "future_signal (rank 2)"
    assert inclusion_reason({"graph": 2}) == (
        "reached from a matching promoted record through a relationship (rank 2)"
    )
