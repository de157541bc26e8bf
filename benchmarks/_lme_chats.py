"""LongMemEval questions as chats the ranker can learn from.

Each question's haystack becomes one conversation (its sessions, dated, the
turns remembered as the LongMemEval benchmark remembers them: by role, no
speaker names) and the question asks it, with the turns marked
``has_answer`` as its evidence. A question none of whose turns is marked
(the abstention questions) has nothing to learn from and is left out.
"""

from collections.abc import Sequence
from typing import Any

from benchmarks._lme_run import haystack, parse_when

__all__ = ["SPEAKERS", "as_chats", "chat_id"]

#: LongMemEval's two roles, in the order ``benchmarks.conversations`` maps speakers to roles
SPEAKERS = ["user", "assistant"]


def chat_id(item: dict[str, Any]) -> str:
    return f"lme-{item['question_id']}"


def as_chats(items: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """``{"conversations": [...], "questions": [...]}``, as the conversation fixture is laid out."""
    conversations: list[dict[str, Any]] = []
    questions: list[dict[str, Any]] = []
    for item in items:
        cid = chat_id(item)
        sessions: list[dict[str, Any]] = []
        evidence: list[str] = []
        for session_id, moment, kept in haystack(item):
            if not kept:
                continue
            turns = []
            for index, turn in enumerate(kept):
                tid = f"{cid}:{session_id}:{index}"
                turns.append({"turn_id": tid, "speaker": turn["role"], "text": turn["content"]})
                if turn.get("has_answer"):
                    evidence.append(tid)
            sessions.append({"session_id": session_id, "date": moment.isoformat(), "turns": turns})
        if not evidence:
            continue
        conversations.append({"conversation_id": cid, "speakers": SPEAKERS, "sessions": sessions})
        questions.append(
            {
                "question_id": f"{cid}-q",
                "conversation_id": cid,
                "question": item["question"],
                "evidence": evidence,
                "asked_at": parse_when(item["question_date"]).isoformat(),
            }
        )
    return {"conversations": conversations, "questions": questions}
