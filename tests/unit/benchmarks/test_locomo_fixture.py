"""Real chats in the LoCoMo layout read as a conversation fixture (benchmarks.conversations)."""

import json
import lzma
from pathlib import Path

from benchmarks.conversations._locomo import is_locomo, load_locomo

CHAT = {
    "sample_id": "Chat_X",
    "conversation": {
        "speaker_a": "Emi",
        "speaker_b": "elise",
        "session_2": [
            {
                "speaker": "elise",
                "dia_id": "D2:1",
                "text": "Back from Miami!",
                "date_time": "03.01.2024, 09:15:00",
            },
        ],
        "session_2_date_time": "9:15 am on 3 January, 2024",
        "session_1": [
            {
                "speaker": "Emi",
                "dia_id": "D1:1",
                "text": "Hey! How are you?",
                "date_time": "29.12.2023, 22:42:04",
            },
            {
                "speaker": "elise",
                "dia_id": "D1:2",
                "text": "Off to Miami tomorrow.",
                "date_time": "30.12.2023, 00:32:20",
            },
        ],
        "session_1_date_time": "10:42 pm on 29 December, 2023",
    },
    "qa": [
        {
            "question": "Where did Elise travel?",
            "answer": "Miami",
            "evidence": ["D1:2", "D2:1"],
            "category": 1,
        },
        {"question": "Unanswerable here", "answer": "x", "evidence": ["D9:9"], "category": 3},
    ],
}


def test_sessions_in_order_turn_ids_and_questions_a_day_after_the_last_message(
    tmp_path: Path,
) -> None:
    path = tmp_path / "chats.json.xz"
    with lzma.open(path, "wt", encoding="utf-8") as handle:
        json.dump([CHAT], handle)
    assert is_locomo(path) and not is_locomo(tmp_path / "fixture.json")
    fixture = load_locomo(path)
    (conversation,) = fixture["conversations"]
    assert conversation["speakers"] == ["Emi", "elise"]
    assert [s["session_id"] for s in conversation["sessions"]] == ["Chat_X-s1", "Chat_X-s2"]
    first = conversation["sessions"][0]
    assert first["date"] == "2023-12-29T22:42:04+00:00"
    assert [t["turn_id"] for t in first["turns"]] == ["Chat_X:D1:1", "Chat_X:D1:2"]
    # a question whose evidence names no turn is left out
    (question,) = fixture["questions"]
    assert question["evidence"] == ["Chat_X:D1:2", "Chat_X:D2:1"]
    assert question["pattern"] == "cat1" and question["asked_at"] == "2024-01-04T09:15:00+00:00"
