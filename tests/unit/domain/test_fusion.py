import pytest

from domain.fusion import RRF_K, fuse_with_episodes, rrf_merge


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
    with pytest.raises(ValueError, match=r"^k must be >= 1$"):
        rrf_merge({"x": ["a"]}, k=0)
    assert rrf_merge({"x": ["a"]}, k=1)[0].score == pytest.approx(1 / 2)


def test_an_item_takes_its_own_votes_whole_and_its_episodes_at_the_weight() -> None:
    hits = fuse_with_episodes(
        {"vector": ["t1"]},
        {"episodes": ["e1"]},
        {"t1": "e1", "t2": "e1"},
        k=10,
        episode_weight=0.5,
    )
    assert [(h.item_id, h.score) for h in hits] == [
        ("t1", pytest.approx(1 / 11 + 0.5 / 11)),
        ("t2", pytest.approx(0.5 / 11)),
    ]


def test_episode_fusion_bounds() -> None:
    with pytest.raises(ValueError, match=r"^k must be >= 1$"):
        fuse_with_episodes({}, {}, {}, k=0)
    with pytest.raises(ValueError, match=r"^episode_weight must be within \[0, 1\]$"):
        fuse_with_episodes({}, {}, {}, episode_weight=1.5)
    (hit,) = fuse_with_episodes({}, {"episodes": ["e1"]}, {"t1": "e1"}, k=1, episode_weight=0.0)
    assert hit.score == 0.0 and hit.ranks == {"episodes": 1}


def test_an_unranked_item_sorts_after_every_ranked_one_of_equal_score() -> None:
    episodes = [f"e{n}" for n in range(100)]
    hits = fuse_with_episodes(
        {}, {"episodes": episodes}, {"a": "none", "b": "e99"}, episode_weight=0.0
    )
    assert [h.item_id for h in hits] == ["b", "a"]
