"""One conversation of the fixture through the service: remember its sessions, ask, score.

Each conversation is its own throwaway organisation (one person's memory of
one chat); each session is remembered as one conversation episode dated with
the session's date; the first speaker's turns have the role ``user``, the
other's ``assistant``, and every turn names its speaker (``--no-speakers``:
roles only). Hits map back to turn ids by (episode, turn index).
"""

from datetime import datetime
from typing import Any

from application.memory.commands import ContextRequest, RememberRequest, SearchRequest
from application.memory.limits import DEFAULT_PACK_BUDGET
from application.memory.service import MemoryService
from benchmarks._lme_run import owner_context
from benchmarks.conversations._metrics import Shown, question_metrics, rendered_metrics
from domain.models import Turn
from domain.scopes import SourceType

__all__ = ["ROLES", "ingest", "run_questions", "shown_turns"]

#: patterns whose evidence is a reply: the pack should show it after what it answers
_REPLIES = frozenset({"reply", "short_turn"})

ROLES = ("user", "assistant")
#: turns read per search (recall@10 needs ten)
SEARCH_LIMIT = 10


def _turn(speakers: list[str], turn: dict[str, Any], moment: datetime, named: bool) -> Turn:
    role = ROLES[speakers.index(turn["speaker"])]
    speaker = turn["speaker"] if named else None
    return Turn(role=role, content=turn["text"], occurred_at=moment, speaker=speaker)


async def ingest(
    service: MemoryService, org: str, conversation: dict[str, Any], named: bool = True
) -> dict[tuple[str, int], str]:
    """Remember every session; returns (source id, turn index) -> turn id.

    ``named=False`` leaves the speakers out (roles only), as before speakers existed.
    """
    turn_of: dict[tuple[str, int], str] = {}
    speakers = conversation["speakers"]
    for session in conversation["sessions"]:
        moment = datetime.fromisoformat(session["date"])
        result = await service.remember(
            RememberRequest(
                org_id=org,
                turns=[_turn(speakers, t, moment, named) for t in session["turns"]],
                occurred_at=moment,
                source_type=SourceType.CONVERSATION,
                metadata={"session_id": session["session_id"]},
            ),
            owner_context(org),
        )
        for index, turn in enumerate(session["turns"]):
            turn_of[(result.source_id, index)] = turn["turn_id"]
    await service.lane.drain()  # the questions need the vectors, as a settled store has them
    return turn_of


def _turn_ids(
    turn_of: dict[tuple[str, int], str], hits: list[tuple[str, int | None]]
) -> list[str]:
    found = (turn_of.get((s, t if t is not None else -1)) for s, t in hits)
    return list(dict.fromkeys(t for t in found if t is not None))


def shown_turns(conversation: dict[str, Any]) -> dict[str, Shown]:
    """Each turn id -> how the rendered pack should show it."""
    out: dict[str, Shown] = {}
    for session in conversation["sessions"]:
        day = session["date"][:10]
        previous: str | None = None
        for turn in session["turns"]:
            out[turn["turn_id"]] = Shown(turn["speaker"], turn["text"], day, previous)
            previous = turn["text"]
    return out


async def run_questions(
    org: str,
    questions: list[dict[str, Any]],
    turn_of: dict[tuple[str, int], str],
    searchers: dict[str, MemoryService],
    shown: dict[str, Shown],
    budget: int | None = None,
) -> list[dict[str, Any]]:
    """``budget``: the context pack's token budget (None: the default)."""
    token_budget = DEFAULT_PACK_BUDGET if budget is None else budget
    records = []
    for q in questions:
        as_of = datetime.fromisoformat(q["asked_at"])
        record: dict[str, Any] = {
            "question_id": q["question_id"], "pattern": q["pattern"], "kind": q["kind"],
            "evidence": q["evidence"], "modes": {}, "top": {},
        }
        for mode, service in searchers.items():
            found = await service.search(
                SearchRequest(org_id=org, query=q["question"], limit=SEARCH_LIMIT, as_of=as_of),
                owner_context(org),
            )
            ranked = _turn_ids(turn_of, [(h.source_id, h.turn_index) for h in found.results])
            pack = await service.context_pack(
                ContextRequest(
                    org_id=org, query=q["question"], as_of=as_of, token_budget=token_budget
                ),
                owner_context(org),
            )
            packed = _turn_ids(turn_of, [(i.source_id, i.turn_index) for i in pack.items])
            metrics = question_metrics(ranked, packed, q["evidence"])
            seen = rendered_metrics(pack.rendered, [shown[t] for t in q["evidence"]])
            metrics["pack_attributed"] = seen["pack_attributed"]
            # what the rendering adds to the items' tokens (headers, names, gap marks)
            metrics["pack_tokens"] = float(pack.token_count)
            metrics["render_extra_tokens"] = float(pack.rendered_token_count - pack.token_count)
            # 1.0 when the rendered pack is over its budget (the rendering must fit it)
            metrics["rendered_over_budget"] = float(pack.rendered_token_count > pack.token_budget)
            if q["pattern"] in _REPLIES:
                metrics["reply_with_question"] = seen["reply_with_question"]
            record["modes"][mode] = metrics
            record["top"][mode] = ranked
        records.append(record)
    return records
