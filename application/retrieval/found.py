"""A ranked chunk id, as the pipeline ranks it and the rerank step reorders it."""

import msgspec

from domain.ranking.reasons import RankReason

__all__ = ["Found"]


class Found(msgspec.Struct, frozen=True, kw_only=True):
    """A ranked chunk id; the caller reads the chunk from the store and checks it again."""

    chunk_id: str
    score: float
    ranks: dict[str, int]
    #: the rules that placed it, as values (said in words by ``domain.ranking.sentences``)
    reasons: list[RankReason] = msgspec.field(default_factory=list)
    #: evidence about the question (``application.retrieval.evidence``); None: not measured
    similarity: float | None = None
    words: int | None = None
