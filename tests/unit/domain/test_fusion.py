import pytest

from domain.fusion import RRF_K, rrf_merge


def test_item_in_both_lists_beats_items_in_one() -> None:
    fused = rrf_merge({"lexical": ["a", "b", "c"], "vector": ["c", "d", "a"]})
    assert fused[0].item_id in {"a", "c"}
    assert {h.item_id for h in fused[:2]} == {"a", "c"}
    assert fused[0].score == pytest.approx(1 / (RRF_K + 1) + 1 / (RRF_K + 3))


def test_ranks_are_recorded_per_signal() -> None:
    fused = {h.item_id: h for h in rrf_merge({"lexical": ["a", "b"], "vector": ["b"]})}
    assert fused["a"].ranks == {"lexical": 1}
    assert fused["b"].ranks == {"lexical": 2, "vector": 1}


def test_ties_break_on_best_rank_then_id() -> None:
    fused = rrf_merge({"x": ["b", "a"], "y": ["a", "b"]})
    assert [h.item_id for h in fused] == ["a", "b"]  # equal scores, equal best rank -> id
    fused = rrf_merge({"x": ["z"], "y": ["q", "z2"]})
    assert [h.item_id for h in fused][:2] == ["q", "z"]


def test_duplicates_inside_a_list_count_once_at_best_rank() -> None:
    (hit,) = rrf_merge({"x": ["a", "a", "a"]})
    assert hit.score == pytest.approx(1 / (RRF_K + 1))


def test_empty_and_bad_k() -> None:
    assert rrf_merge({}) == []
    assert rrf_merge({"x": []}) == []
    with pytest.raises(ValueError):
        rrf_merge({"x": ["a"]}, k=0)
