"""Applies a configured reranker to the top of the ranked list, and says what moved.

Only the first ``top_n`` results are sent (a model's cost grows with every
candidate); they are reordered by the reranker's scores, ties keeping the
ranker's order, and the rest follow unchanged. Positions are 1-based in the
ranked list, so an item that moved reads "reranked from 7 to 2 by llm".
The step fails soft like the adapters: scores that do not cover the
candidates, or a reranker that raises, keep the ranker's order and log
``rerank_failed``.
"""

import logging
from collections.abc import Mapping, Sequence

import msgspec

from application.ports.records import IndexedText
from application.ports.rerank import RerankCandidate, Reranker, RerankScore
from application.retrieval.found import Found
from domain.ranking.reasons import RankCode, RankReason
from domain.reasons import ReasonCode

__all__ = ["DEFAULT_TOP_N", "rerank_top"]

_log = logging.getLogger("tessera.rerank")

#: results the reranker sees unless configured otherwise
DEFAULT_TOP_N = 20


def _candidate(item_id: str, text: IndexedText) -> RerankCandidate:
    day = text.occurred_at.date() if text.occurred_at else None
    return RerankCandidate(
        item_id=item_id, text=text.text, speaker=text.speaker, role=text.role, day=day
    )


async def _scores(
    reranker: Reranker, query: str, candidates: list[RerankCandidate]
) -> dict[str, RerankScore] | None:
    try:
        scores = await reranker.rerank(query, candidates)
    except Exception as exc:  # an outside adapter that does not fail soft itself
        _log.warning(
            "%s: reranker %s raised %s; kept the ranker's order",
            ReasonCode.RERANK_FAILED,
            reranker.name,
            type(exc).__name__,
        )
        return None
    by_id = {s.item_id: s for s in scores}
    if len(scores) != len(candidates) or set(by_id) != {c.item_id for c in candidates}:
        _log.warning(
            "%s: reranker %s did not score each candidate once; kept the ranker's order",
            ReasonCode.RERANK_FAILED,
            reranker.name,
        )
        return None
    return by_id


async def rerank_top(
    reranker: Reranker,
    query: str,
    found: Sequence[Found],
    texts: Mapping[str, IndexedText],
    top_n: int,
) -> list[Found]:
    """``found`` with its first ``top_n`` reordered by ``reranker``; reasons say what moved."""
    head = [f for f in found[:top_n] if f.chunk_id in texts]
    if len(head) < 2:
        return list(found)
    candidates = [_candidate(f.chunk_id, texts[f.chunk_id]) for f in head]
    by_id = await _scores(reranker, query, candidates)
    if by_id is None:
        return list(found)
    order = sorted(range(len(head)), key=lambda i: (-by_id[head[i].chunk_id].score, i))
    moved: list[Found] = []
    for new, old in enumerate(order):
        hit = head[old]
        notes = by_id[hit.chunk_id].reasons
        reasons = [*hit.reasons, *(RankReason(code=RankCode.RERANKER_NOTE, note=n) for n in notes)]
        if new != old:
            moved_by = RankReason(
                code=RankCode.RERANKED, before=old + 1, after=new + 1, by=reranker.name
            )
            reasons.append(moved_by)
        moved.append(msgspec.structs.replace(hit, reasons=reasons))
    kept = {f.chunk_id for f in head}
    return moved + [f for f in found if f.chunk_id not in kept]
