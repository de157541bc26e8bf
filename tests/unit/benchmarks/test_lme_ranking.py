"""How the LongMemEval harness ranks sessions and finds gold turns, shared by every arm
(Tessera's and ``benchmarks.vs_mem0``'s mem0 one) on a made-up haystack.

What must hold: a session ranks where its best turn does, each session and turn once;
turns without visible text are left out of a session and out of the gold turns'
indexes, as ``remember`` leaves them out.
"""

from importlib import metadata
from typing import Any

import pytest

from benchmarks._lme_metrics import question_metrics, rank_by_first_appearance
from benchmarks._lme_run import gold_turns_of, haystack


def test_sessions_rank_by_their_first_hit() -> None:
    sessions, turns = rank_by_first_appearance(
        [("b", 2), ("a", 0), ("b", 2), ("b", 5), ("c", 1), ("a", 3)]
    )
    assert sessions == ["b", "a", "c"]
    assert turns == [("b", 2), ("a", 0), ("b", 5), ("c", 1), ("a", 3)]
    assert question_metrics(sessions, ["a"], ["a", "b", "c"], turns, [])["recall_all@1"] == 0.0


def test_invisible_turns_are_not_counted() -> None:
    item: dict[str, Any] = {
        "haystack_session_ids": ["s1", "s2"],
        "haystack_dates": ["2023/05/25 (Thu) 10:04", "2023/05/26 (Fri) 09:00"],
        "haystack_sessions": [
            [
                {"role": "user", "content": "\u200b"},
                {"role": "user", "content": "the tiles are green", "has_answer": True},
            ],
            [{"role": "assistant", "content": "noted"}],
        ],
    }
    sessions = haystack(item)
    assert [(s, len(t)) for s, _, t in sessions] == [("s1", 1), ("s2", 1)]
    assert sessions[0][1].isoformat() == "2023-05-25T10:04:00+00:00"
    assert gold_turns_of(item) == {("s1", 0)}


def test_the_mem0_comparison_names_its_extra_when_mem0_is_absent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from benchmarks import _mem0_arm

    def absent(name: str) -> str:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(_mem0_arm.metadata, "version", absent)
    with pytest.raises(SystemExit, match=r"pip install -e '\.\[bench\]'"):
        _mem0_arm.require_mem0()
