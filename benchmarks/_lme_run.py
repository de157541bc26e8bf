"""One LongMemEval question through the service: remember the haystack, search, score, drop.

Each session is remembered as one conversation (an episode with the
session's date); each turn keeps its role. Sessions are ranked by the first
appearance of any of their turns in the search results.
"""

import time
import uuid
import zlib
from collections import Counter
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from application.memory.commands import ContextRequest, RememberRequest, SearchRequest
from application.memory.results import SearchHit
from application.memory.service import MemoryService
from benchmarks._embed_cache import CachedEmbedder
from benchmarks._lme_data import chunk_texts
from benchmarks._lme_metrics import question_metrics, rank_by_first_appearance
from domain.models import Principal, Turn
from domain.policy import MemoryPolicyContext, OrgRole, Surface
from domain.scopes import SourceType
from domain.visible_text import has_visible_text

if TYPE_CHECKING:
    from benchmarks._lme_derived import DerivedPhase

__all__ = ["gold_turns_of", "haystack", "owner_context", "parse_when", "run_question"]


def parse_when(text: str) -> datetime:
    """'2023/05/25 (Thu) 10:04' -> an aware datetime (the data carries no zone: UTC)."""
    day, _, clock = text.partition(" (")
    clock = clock.partition(") ")[2] or "00:00"
    return datetime.strptime(f"{day} {clock}", "%Y/%m/%d %H:%M").replace(tzinfo=UTC)


#: who remembers and asks in each throwaway organisation
ACTOR = "longmemeval"


def owner_context(org: str) -> MemoryPolicyContext:
    """The throwaway organisation's owner: every call still goes through the memory policy."""
    return MemoryPolicyContext(
        org_id=org,
        actor=Principal(principal_id=ACTOR),
        surface=Surface.JOB,
        now=datetime.now(UTC),
        org_role=OrgRole.OWNER,
    )


def haystack(item: dict[str, Any]) -> list[tuple[str, datetime, list[dict[str, Any]]]]:
    """Each session's id, date and the turns remembered of it, with the gold turns' indexes
    counted among those. remember refuses a turn with no visible text (zero-width or
    control characters only): such a turn is no evidence, so it is left out here too."""
    return [
        (
            session_id,
            parse_when(date_text),
            [t for t in session if has_visible_text(str(t.get("content", "")))],
        )
        for session_id, date_text, session in zip(
            item["haystack_session_ids"],
            item["haystack_dates"],
            item["haystack_sessions"],
            strict=True,
        )
    ]


def gold_turns_of(item: dict[str, Any]) -> set[tuple[str, int]]:
    """(session id, turn index) of every turn marked ``has_answer``."""
    return {
        (session_id, index)
        for session_id, _, turns in haystack(item)
        for index, turn in enumerate(turns)
        if turn.get("has_answer")
    }


async def _ingest(service: MemoryService, org: str, item: dict[str, Any]) -> dict[str, str]:
    """Remember every session; returns source id -> session id."""
    session_of: dict[str, str] = {}
    for session_id, moment, kept in haystack(item):
        if not kept:
            continue
        turns = [Turn(role=t["role"], content=t["content"], occurred_at=moment) for t in kept]
        result = await service.remember(
            RememberRequest(
                org_id=org,
                turns=turns,
                occurred_at=moment,
                source_type=SourceType.CONVERSATION,
                metadata={"session_id": session_id},
            ),
            owner_context(org),
        )
        session_of[result.source_id] = session_id
    await service.lane.drain()  # the questions need the vectors, as a settled store has them
    return session_of


async def run_question(
    item: dict[str, Any],
    ingest: MemoryService,
    searchers: dict[str, MemoryService],
    embedder: CachedEmbedder,
    pack: bool,
    limit: int,
    derived: "DerivedPhase | None" = None,
    rotate: bool = False,
) -> dict[str, Any]:
    """``derived``: reflect and promote after the haystack is remembered (``_lme_derived``).
    ``rotate``: the searchers take turns going first, question by question (a paired
    comparison's arms then share the first search's costs alike)."""
    org = f"lme-{item['question_id']}-{uuid.uuid4().hex[:8]}"
    started = time.perf_counter()
    await embedder.prefill(chunk_texts(item))
    session_of = await _ingest(ingest, org, item)
    gold_turns = gold_turns_of(item)
    ingest_s = time.perf_counter() - started
    as_of = parse_when(item["question_date"])
    record: dict[str, Any] = {
        "question_id": item["question_id"],
        "question_type": item["question_type"],
        "question": item["question"],
        "answer_session_ids": item["answer_session_ids"],
        "ingest_s": round(ingest_s, 3),
        "modes": {},
    }
    try:
        if derived is not None:
            record["derived"] = await derived.run(org, list(session_of))
        order = list(searchers.items())
        if rotate:
            turn = zlib.crc32(str(item["question_id"]).encode()) % len(order)
            order = order[turn:] + order[:turn]
        for mode, service in order:
            request = SearchRequest(org_id=org, query=item["question"], limit=limit, as_of=as_of)
            t0 = time.perf_counter()
            results = await service.search(request, owner_context(org))
            search_ms = (time.perf_counter() - t0) * 1000
            sessions, turns = rank_by_first_appearance(
                (session_of[h.source_id], h.turn_index if h.turn_index is not None else -1)
                for h in results.results
            )
            record["modes"][mode] = {
                "search_ms": round(search_ms, 3),
                # promoted records that matched, and top-10 hits a derived signal supported
                "derived_hits": len(results.derived),
                "derived_top10": sum(1 for h in results.results[:10] if _derived_signal(h)),
                "derived_types": dict(Counter(str(h.type) for h in results.derived[:10])),
                "sessions": sessions[:20],
                "turns": [[s, t, (s, t) in gold_turns] for s, t in turns[:10]],
                "metrics": question_metrics(
                    sessions,
                    item["answer_session_ids"],
                    item["haystack_session_ids"],
                    turns,
                    gold_turns,
                ),
            }
        if pack:
            last = list(searchers.values())[-1]
            packed = await last.context_pack(
                ContextRequest(org_id=org, query=item["question"], as_of=as_of), owner_context(org)
            )
            record["pack"] = {
                "tokens": packed.token_count,
                "episodes": len(packed.episodes),
                "gold_sessions": sorted(
                    {session_of[e.source_id] for e in packed.episodes}
                    & set(item["answer_session_ids"])
                ),
            }
    finally:
        await ingest.drop_organization(org)
        if derived is not None:
            await derived.forget(org)
    return record


def _derived_signal(hit: SearchHit) -> bool:
    s = hit.signals
    return any(r is not None for r in (s.entity_rank, s.graph_rank, s.relation_rank))
