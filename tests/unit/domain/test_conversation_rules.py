"""Conversation windows, pooled context in fusion, the spread over runs, and the ranker's
conversation rules (a question turn lending to its reply; a name as a speaker, not a subject)."""

import pytest

from domain.fusion import RRF_K, fuse_with_episodes
from domain.ranking.question import profile_question
from domain.ranking.ranker import Candidate, RankWeights, rank_candidates
from domain.ranking.spread import spread_over_episodes, spread_over_runs
from domain.windows import window_order


def test_a_window_hit_brings_every_turn_inside_it_centre_first() -> None:
    episodes = {"e1": ["a", "b", "c", "d"], "e2": ["x", "y"]}
    # "b" matches alone; "x" and "y" both match a little: their window beats b's
    order = window_order(episodes, {"b": 0.5, "x": 0.3, "y": 0.3})
    assert order[:2] == ["x", "y"]
    assert order[2:5] == ["a", "b", "c"]  # window centred on a (a, b), then on b (a, b, c)
    assert "d" in order  # the window centred on c holds b


def test_windows_never_reach_past_their_episode_or_hold_turns_not_given() -> None:
    order = window_order({"e1": ["a", "b"], "e2": ["c"]}, {"b": 1.0})
    assert set(order) == {"a", "b"}
    assert window_order({"e1": ["a", "b", "c"]}, {}) == []
    wide = window_order({"e1": ["a", "b", "c", "d", "e", "f"]}, {"a": 1.0}, radius=2)
    assert set(wide) == {"a", "b", "c", "d", "e"}  # the window centred on c reaches a
    with pytest.raises(ValueError):
        window_order({}, {}, radius=0)


def test_episode_votes_at_weight_one_and_no_context_fuse_as_before() -> None:
    items = {"lexical": ["t1", "t2"], "vector": ["t3"]}
    episodes = {"episode_vector": ["e1", "e2"]}
    of = {"t1": "e1", "t2": "e2", "t3": "e2", "t4": "e1"}
    hits = {h.item_id: h.score for h in fuse_with_episodes(items, episodes, of)}
    assert hits["t1"] == pytest.approx(2 / (RRF_K + 1))
    assert hits["t4"] == pytest.approx(1 / (RRF_K + 1))
    half = {h.item_id: h.score for h in fuse_with_episodes(items, episodes, of, episode_weight=0.5)}
    assert half["t4"] == pytest.approx(0.5 / (RRF_K + 1))
    with pytest.raises(ValueError):
        fuse_with_episodes(items, episodes, of, episode_weight=1.5)


def test_pooled_context_never_outvotes_an_items_own_match() -> None:
    # "small" sits next to "strong" and in the best episode: three context votes at rank 1
    items = {"vector": ["strong", "other"], "neighbour": ["small"], "window": ["small"]}
    episodes = {"episode_lexical": ["e1"], "episode_vector": ["e1"]}
    of = {"strong": "e2", "other": "e1", "small": "e1"}
    summed = [h.item_id for h in fuse_with_episodes(items, episodes, of)]
    assert summed[0] == "small"  # the flaw: context added up beat the best own match
    pooled = fuse_with_episodes(
        items, episodes, of, episode_weight=0.5, context={"neighbour", "window"}
    )
    order = [h.item_id for h in pooled]
    assert order.index("strong") < order.index("small")
    assert order[0] == "other"  # its own match, then its talk's context, breaks the tie
    score = {h.item_id: h.score for h in pooled}
    assert score["small"] == pytest.approx(0.5 / (RRF_K + 1))
    assert score["other"] == pytest.approx(1 / (RRF_K + 2) + 0.5 / (RRF_K + 1))


def test_the_spread_counts_runs_of_neighbouring_turns_not_single_turns() -> None:
    ranked = [("e1", 3), ("e1", 4), ("e1", 9), ("e2", 1), ("e1", 12)]
    by_turn = spread_over_episodes(ranked, lambda t: t[0], per_episode=2)
    assert by_turn.index(("e1", 9)) > by_turn.index(("e2", 1))
    by_run = spread_over_runs(ranked, lambda t: t[0], lambda t: t[1], per_episode=2)
    # question 3 and its reply 4 are one run: turn 9 still fits in the episode's two
    assert by_run[:4] == [("e1", 3), ("e1", 4), ("e1", 9), ("e2", 1)]
    assert by_run[4] == ("e1", 12)
    with pytest.raises(ValueError):
        spread_over_runs(ranked, lambda t: t[0], lambda t: t[1], per_episode=0)


def test_a_run_holds_a_question_and_its_reply_not_a_whole_talk() -> None:
    # a user/assistant talk: every turn is next to another speaker's
    ranked = [("e1", 4), ("e1", 5), ("e1", 6), ("e1", 3), ("e2", 1), ("e1", 7)]
    paired = spread_over_runs(ranked, lambda t: t[0], lambda t: t[1], per_episode=1)
    # 4 and 5 are one run; 6 would make it three turns, so it is a second run: it waits
    assert paired[:3] == [("e1", 4), ("e1", 5), ("e2", 1)]
    unbounded = spread_over_runs(
        ranked, lambda t: t[0], lambda t: t[1], per_episode=1, max_run=10
    )
    assert unbounded[:5] == [("e1", 4), ("e1", 5), ("e1", 6), ("e1", 3), ("e2", 1)]
    # two runs of two: 6 opens the second run, 7 joins it; 3 waits
    two = spread_over_runs(ranked, lambda t: t[0], lambda t: t[1], per_episode=2)
    assert two == [("e1", 4), ("e1", 5), ("e1", 6), ("e2", 1), ("e1", 7), ("e1", 3)]
    with pytest.raises(ValueError):
        spread_over_runs(ranked, lambda t: t[0], lambda t: t[1], max_run=0)


def _cands(*turns: tuple[str, str, str, float]) -> list[Candidate]:
    return [
        Candidate(
            item_id=f"t{n}", episode_id="e1", text=f"{who}: {text}", fused=fused,
            role="user" if who == "Sam" else "assistant", speaker=who, turn_index=n,
        )
        for n, (_, who, text, fused) in enumerate(turns)
    ]


def test_a_matching_question_turn_lends_its_evidence_to_the_reply() -> None:
    cands = _cands(
        ("", "Sam", "Did you end up adopting the cat from the shelter?", 0.030),
        ("", "Maya", "Yes!! We called him Pixel, he's tiny.", 0.010),
        ("", "Sam", "Lovely weather for it.", 0.020),
    )
    profile = profile_question("What did Maya name the cat she adopted from the shelter?")
    ranked = rank_candidates(profile, cands)
    reply = next(r for r in ranked if r.item_id == "t1")
    assert "reply to a matching turn" in reply.reasons
    assert [r.item_id for r in ranked].index("t1") < [r.item_id for r in ranked].index("t2")
    off = rank_candidates(profile, cands, weights=RankWeights(reply=0.0))
    assert all("reply to a matching turn" not in r.reasons for r in off)


def test_a_turn_after_a_statement_or_by_the_same_speaker_borrows_nothing() -> None:
    cands = _cands(
        ("", "Sam", "I adopted a cat from the shelter.", 0.03),
        ("", "Maya", "Lovely.", 0.01),
        ("", "Maya", "Did you adopt the cat from the shelter?", 0.03),
        ("", "Maya", "Pixel.", 0.01),
    )
    ranked = rank_candidates(profile_question("Who adopted a cat from the shelter?"), cands)
    assert all("reply to a matching turn" not in r.reasons for r in ranked)


def test_a_named_speaker_is_who_said_it_not_a_word_every_turn_of_theirs_covers() -> None:
    cands = _cands(
        ("", "Maya", "Morning! Got a minute?", 0.02),
        ("", "Sam", "I ran my first marathon last weekend!", 0.02),
        ("", "Maya", "I ran my first marathon last weekend!", 0.02),
    )
    profile = profile_question("When did Maya run a marathon?")
    ranked = rank_candidates(profile, cands)
    assert [r.item_id for r in ranked] == ["t2", "t1", "t0"]
    assert "said by Maya, whom the question names" in ranked[0].reasons
    # as before: the name counted as a subject word, so Maya's small talk matched as
    # much as Sam's marathon
    old = rank_candidates(profile, cands, weights=RankWeights(speaker_names=False, reply=0.0))
    assert [r.item_id for r in old] == ["t2", "t0", "t1"]


def test_a_window_reaches_one_turn_either_side_by_default_and_ties_keep_reading_order() -> None:
    assert window_order({"e1": ["a", "b", "c", "d", "e"]}, {"c": 1.0}) == ["b", "a", "c", "d", "e"]
    # both windows score alike: the earlier centre ranks first, whatever its id
    assert window_order({"e1": ["b", "a"]}, {"b": 1.0, "a": 1.0}) == ["b", "a"]
    with pytest.raises(ValueError, match=r"^radius must be >= 1$"):
        window_order({}, {}, radius=0)
