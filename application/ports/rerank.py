"""The rerank port: a second opinion on the ranker's top candidates.

The ranker is lexical and rule-based; a reranker (a cross-encoder, or a
language model reading the candidates side by side) can judge meaning the
signals miss, such as a short reply that answers the question without sharing
its words. It is an option, never required: the default adapter keeps the
ranker's order and says nothing, and the pipeline skips the step entirely when
none is configured.

A reranker is given the query and the candidates (ids, text, speaker, role,
date) and returns one score per candidate, higher is better, each with the
reasons for it in words. Adapters fail soft: a model that fails or answers
something malformed falls back to the input order and logs a reason code;
a search never fails because of its reranker.
"""

import math
from collections.abc import Sequence
from datetime import date
from typing import Protocol, runtime_checkable

import msgspec

__all__ = ["RerankCandidate", "RerankScore", "Reranker", "input_order_scores"]


class RerankCandidate(msgspec.Struct, frozen=True, kw_only=True):
    item_id: str
    #: what was said (with the speaker's name before it for a named turn)
    text: str
    speaker: str | None = None
    role: str | None = None
    #: the day of the episode the candidate belongs to, when known
    day: date | None = None


class RerankScore(msgspec.Struct, frozen=True, kw_only=True):
    item_id: str
    #: higher is better; comparable only within one call
    score: float
    reasons: list[str] = msgspec.field(default_factory=list)

    def __post_init__(self) -> None:
        if not math.isfinite(self.score):
            raise ValueError("score must be finite")


@runtime_checkable
class Reranker(Protocol):
    @property
    def name(self) -> str:
        """Short name for reasons ("reranked from 7 to 2 by llm")."""
        ...

    async def rerank(
        self, query: str, candidates: Sequence[RerankCandidate]
    ) -> list[RerankScore]:
        """One score per candidate, in any order; never raises for a model failure."""
        ...


def input_order_scores(candidates: Sequence[RerankCandidate]) -> list[RerankScore]:
    """Scores that keep the given order and say nothing: the fail-soft answer."""
    count = len(candidates)
    return [
        RerankScore(item_id=c.item_id, score=float(count - i)) for i, c in enumerate(candidates)
    ]
