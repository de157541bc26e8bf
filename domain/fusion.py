"""Reciprocal rank fusion: merge ranked candidate lists without score calibration.

BM25 scores and cosine distances live on different scales; RRF only uses
ranks, so each signal gets a fair vote (Cormack et al. 2009, k = 60).
"""

from collections.abc import Mapping, Sequence

import msgspec

__all__ = ["RRF_K", "FusedHit", "rrf_merge"]

RRF_K = 60


class FusedHit(msgspec.Struct, frozen=True, kw_only=True):
    item_id: str
    score: float
    #: 1-based rank of the item in each signal that returned it
    ranks: dict[str, int]


def rrf_merge(lists: Mapping[str, Sequence[str]], k: int = RRF_K) -> list[FusedHit]:
    """Fuse ranked id lists; ties break on the best single rank, then the id.

    A duplicate id inside one list counts once, at its best rank.
    """
    if k < 1:
        raise ValueError("k must be >= 1")
    ranks: dict[str, dict[str, int]] = {}
    for signal, ids in lists.items():
        for position, item_id in enumerate(ids, start=1):
            ranks.setdefault(item_id, {}).setdefault(signal, position)
    hits = [
        FusedHit(
            item_id=item_id,
            score=sum(1.0 / (k + rank) for rank in by_signal.values()),
            ranks=by_signal,
        )
        for item_id, by_signal in ranks.items()
    ]
    hits.sort(key=lambda h: (-h.score, min(h.ranks.values()), h.item_id))
    return hits
