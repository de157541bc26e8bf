"""Real conversations in the LoCoMo layout (REALTALK's chats) as a conversation fixture.

``benchmarks.conversations --fixture PATH.json.xz`` reads such a file: a JSON
list of chats, each with ``conversation`` (``speaker_a``, ``speaker_b``,
``session_N`` lists of turns with ``speaker``, ``dia_id``, ``text`` and the
message's ``date_time`` as ``DD.MM.YYYY, HH:MM:SS``) and ``qa`` (question,
evidence dia ids, category). Each session becomes one fixture session dated
with its first message; each question is asked a day after the chat's last
message, and its pattern is its category (``cat1`` fact, ``cat2`` date,
``cat3`` inference). The file is read in place, never copied.
"""

import json
import lzma
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

__all__ = ["is_locomo", "load_locomo"]

_SESSION = re.compile(r"session_(\d+)$")


def is_locomo(path: Path) -> bool:
    return path.name.endswith(".json.xz")


def _moment(text: str) -> datetime:
    return datetime.strptime(text, "%d.%m.%Y, %H:%M:%S").replace(tzinfo=UTC)


def _chat(chat: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    cid = str(chat["sample_id"])
    talk = chat["conversation"]
    speakers = [talk["speaker_a"], talk["speaker_b"]]
    numbers = sorted(int(m.group(1)) for k in talk if (m := _SESSION.match(k)))
    sessions = []
    last = datetime.min.replace(tzinfo=UTC)
    known: set[str] = set()
    for n in numbers:
        turns = talk[f"session_{n}"]
        if not turns:
            continue
        moments = [_moment(t["date_time"]) for t in turns]
        last = max(last, *moments)
        sessions.append(
            {
                "session_id": f"{cid}-s{n}",
                "date": moments[0].isoformat(),
                "turns": [
                    {"turn_id": f"{cid}:{t['dia_id']}", "speaker": t["speaker"], "text": t["text"]}
                    for t in turns
                ],
            }
        )
        known.update(f"{cid}:{t['dia_id']}" for t in turns)
    asked_at = (last + timedelta(days=1)).isoformat()
    questions = []
    for n, qa in enumerate(chat["qa"]):
        evidence = [f"{cid}:{e}" for e in qa["evidence"] if f"{cid}:{e}" in known]
        if not evidence:
            continue
        questions.append(
            {
                "question_id": f"{cid}-q{n}",
                "conversation_id": cid,
                "question": qa["question"],
                "answer": str(qa.get("answer", "")),
                "evidence": evidence,
                "superseded": [],
                "pattern": f"cat{qa['category']}",
                "kind": f"cat{qa['category']}",
                "asked_at": asked_at,
            }
        )
    conversation = {"conversation_id": cid, "speakers": speakers, "sessions": sessions}
    return conversation, questions


def load_locomo(path: Path) -> dict[str, Any]:
    """The file as a fixture: ``{"conversations": [...], "questions": [...]}``."""
    with lzma.open(path, "rt", encoding="utf-8") as handle:
        chats = json.load(handle)
    conversations, questions = [], []
    for chat in chats:
        conversation, asked = _chat(chat)
        conversations.append(conversation)
        questions.extend(asked)
    return {"conversations": conversations, "questions": questions}
