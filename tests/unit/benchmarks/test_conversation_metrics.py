"""Turn-level metrics of the conversation benchmark, on made-up rankings."""

import pytest

from benchmarks.conversations import _metrics as m


def test_recall_counts_the_share_of_evidence_in_the_first_k() -> None:
    ranked = ["a", "b", "c", "d", "e", "f"]
    assert m.recall_at(ranked, ["b", "f"], 5) == 0.5
    assert m.recall_at(ranked, ["b", "f"], 10) == 1.0
    assert m.recall_at(ranked, ["z"], 10) == 0.0


def test_ndcg_rewards_evidence_near_the_top() -> None:
    assert m.ndcg_at(["g", "x"], ["g"], 10) == 1.0
    assert m.ndcg_at(["x", "g"], ["g"], 10) == pytest.approx(1 / 1.584962500721156)
    # two of two evidence turns at ranks 1 and 3: (1 + 1/2) / (1 + 1/log2(3))
    assert m.ndcg_at(["g", "x", "h"], ["g", "h"], 10) == pytest.approx(1.5 / 1.6309297535714575)
    assert m.ndcg_at(["x"] * 10 + ["g"], ["g"], 10) == 0.0


def test_pack_recall_ignores_order() -> None:
    assert m.pack_recall(["c", "a"], ["a", "b", "c"]) == pytest.approx(2 / 3)


def test_a_question_without_evidence_is_refused() -> None:
    with pytest.raises(ValueError, match="evidence"):
        m.recall_at(["a"], [], 5)


def test_aggregate_splits_by_pattern() -> None:
    records = [
        {"pattern": "reply", "modes": {"x": {"recall@5": 1.0}}},
        {"pattern": "reply", "modes": {"x": {"recall@5": 0.0}}},
        {"pattern": "plain", "modes": {"x": {"recall@5": 1.0}}},
    ]
    out = m.aggregate(records, "x")
    assert out["recall@5"] == pytest.approx(0.6667)
    assert out["by_pattern"]["reply"] == {"recall@5": 0.5, "questions": 2}
    assert out["by_pattern"]["plain"]["questions"] == 1


def test_rendered_metrics_need_speaker_date_and_the_turn_before() -> None:
    rendered = (
        "## [1] Conversation of Monday 2023-05-08 19:42 +0000\n"
        "Sam: Did you adopt the cat?\n"
        "Maya: Yes!! We called him Pixel.\n"
        "…\n"
        "Maya: I ran a marathon.\n"
        "\n"
        "## [2] Conversation of Friday 2023-06-02 10:00 +0000\n"
        "user: Lovely weather."
    )
    reply = m.Shown("Maya", "Yes!! We called him Pixel.", "2023-05-08", "Did you adopt the cat?")
    run = m.Shown("Maya", "I ran a  marathon.", "2023-05-08", "Something else entirely")
    wrong_day = m.Shown("Maya", "I ran a marathon.", "2023-05-09", None)
    unnamed = m.Shown("Sam", "Lovely weather.", "2023-06-02", None)
    missing = m.Shown("Sam", "Not in the pack.", "2023-06-02", None)
    assert m.rendered_metrics(rendered, [reply]) == {
        "pack_attributed": 1.0,
        "reply_with_question": 1.0,
    }
    assert m.rendered_metrics(rendered, [run]) == {
        "pack_attributed": 1.0,
        "reply_with_question": 0.0,
    }
    assert m.rendered_metrics(rendered, [wrong_day, unnamed, missing, reply]) == {
        "pack_attributed": 0.25,
        "reply_with_question": 0.25,
    }


def test_aggregate_means_a_metric_only_over_questions_that_have_it() -> None:
    records = [
        {"pattern": "reply", "modes": {"x": {"a": 1.0, "b": 0.0}}},
        {"pattern": "plain", "modes": {"x": {"a": 0.0}}},
    ]
    out = m.aggregate(records, "x")
    assert (out["a"], out["b"]) == (0.5, 0.0)
    assert "b" not in out["by_pattern"]["plain"]
