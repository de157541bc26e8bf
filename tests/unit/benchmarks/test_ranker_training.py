"""What the ranker learns from: LongMemEval haystacks as chats, and recall counted by turn.

What must hold: a haystack becomes one chat whose evidence is its ``has_answer``
turns, laid out as the conversation fixture is (so one ingest serves both), and
a question without evidence is left out; a long turn split into several
candidates counts once towards recall, so recall never passes 1; the refit
test learns which chunks lack a cached vector before it starts.
"""

from pathlib import Path
from typing import Any

from benchmarks._lme_chats import as_chats
from benchmarks.ranker_fit import Example, Source, _recall, uncached


def _item(qid: str, answered: bool) -> dict[str, Any]:
    return {
        "question_id": qid,
        "question": "Which tiles did I choose?",
        "question_date": "2023/06/01 (Thu) 09:00",
        "haystack_session_ids": ["s1", "s2"],
        "haystack_dates": ["2023/05/25 (Thu) 10:04", "2023/05/26 (Fri) 09:00"],
        "haystack_sessions": [
            [
                {"role": "user", "content": "\u200b"},
                {"role": "user", "content": "the tiles are green", "has_answer": answered},
            ],
            [{"role": "assistant", "content": "noted"}],
        ],
    }


def test_a_haystack_is_a_chat_whose_evidence_is_its_answering_turns() -> None:
    chats = as_chats([_item("q1", True), _item("q2", False)])
    assert [c["conversation_id"] for c in chats["conversations"]] == ["lme-q1"]
    (chat,) = chats["conversations"]
    assert chat["speakers"] == ["user", "assistant"]
    assert [len(s["turns"]) for s in chat["sessions"]] == [1, 1]
    assert chat["sessions"][0]["date"] == "2023-05-25T10:04:00+00:00"
    (question,) = chats["questions"]
    assert question["conversation_id"] == "lme-q1"
    assert question["evidence"] == [chat["sessions"][0]["turns"][0]["turn_id"]]
    assert question["asked_at"] == "2023-06-01T09:00:00+00:00"


def test_a_turn_found_as_two_chunks_counts_once() -> None:
    rows = [[1.0], [0.9], [0.5], [0.1]]
    ex = Example("g", rows, [True, True, False, True], [0, 1, 2, 3], 2, [0, 0, -1, 1])
    assert _recall([0, 1, 2, 3], ex, k=2) == 0.5
    assert _recall([0, 1, 2, 3], ex, k=4) == 1.0
    assert Example.from_json(ex.as_json()).turns == [0, 0, -1, 1]


def test_a_table_recorded_before_turns_counts_each_evidence_candidate_apart() -> None:
    ex = Example.from_json(
        {"group": "g", "rows": [[1.0], [0.0]], "gold": [True, False], "hand": [0, 1], "wanted": 1}
    )
    assert _recall([0, 1], ex) == 1.0


def test_chunks_without_a_cached_vector_are_counted(tmp_path: Path) -> None:
    chats = as_chats([_item("q1", True)])
    cached = Source("lme", chats, named=False, vectors=tmp_path)
    assert uncached(cached) == 2  # "the tiles are green" and "noted", nothing cached yet
    assert uncached(Source("chat", chats)) == 0  # no cache: embedded as it is read
