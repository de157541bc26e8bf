"""A fused candidate as the ranker reads it."""

from datetime import date

import msgspec

from domain.ranking.marks import TextMarks

__all__ = ["Candidate"]


class Candidate(msgspec.Struct, frozen=True, kw_only=True):
    item_id: str
    episode_id: str
    text: str
    fused: float
    role: str | None = None
    episode_date: date | None = None
    speaker: str | None = None
    turn_index: int | None = None
    #: each fused signal's rank of this candidate (0 = its first)
    ranks: dict[str, int] = msgspec.field(default_factory=dict)
    #: the text's own marks where the index kept them (None: worked out from ``text``)
    marks: TextMarks | None = None
