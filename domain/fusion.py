"""Reciprocal rank fusion: merge ranked candidate lists without score calibration.

BM25 scores and cosine distances live on different scales; RRF only uses
ranks, so each signal gets a fair vote (Cormack et al. 2009, k = 60).
"""

from collections.abc import Collection, Mapping, Sequence

import msgspec

__all__ = ["RRF_K", "FusedHit", "fuse_with_episodes", "rrf_merge"]

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


def fuse_with_episodes(
    item_lists: Mapping[str, Sequence[str]],
    episode_lists: Mapping[str, Sequence[str]],
    episode_of: Mapping[str, str],
    k: int = RRF_K,
    episode_weight: float = 1.0,
    context: Collection[str] | None = None,
) -> list[FusedHit]:
    """RRF over items where an item also takes the votes its episode got.

    Every item of ``episode_of`` is scored (expansion may add items no item
    list returned); an episode signal ranks episodes, and each item of a
    ranked episode counts that rank once, times ``episode_weight``. Items
    without an episode entry are left out. Ties break as in ``rrf_merge``.

    Why the weight: an episode's vote goes to every turn of it, small talk
    included. At full weight two episode signals (2/61) outvote the best
    turn of the best turn-level signal (1/61), so on the conversation fixture
    the turns of one matching talk pushed the evidence of every other talk
    out, and fusion scored below its own vector leg (benchmarks/RESULTS.md).

    ``context``: item signals that say where an item sits rather than what it
    holds (its neighbours matched, a window around it matched). With it, the
    episode signals and these pool: an item takes the best one of their
    votes, times ``episode_weight``, plus the sum of its own signals' votes.
    Summed, three context votes lifted the small talk beside a strong turn
    above the turn itself; pooled, context breaks ties among items that
    matched alike and never outvotes a match of the item's own.
    """
    if k < 1:
        raise ValueError("k must be >= 1")
    if not 0.0 <= episode_weight <= 1.0:
        raise ValueError("episode_weight must be within [0, 1]")
    episode_ranks: dict[str, dict[str, int]] = {}
    for signal, episodes in episode_lists.items():
        for position, episode in enumerate(episodes, start=1):
            episode_ranks.setdefault(episode, {}).setdefault(signal, position)
    item_ranks: dict[str, dict[str, int]] = {}
    for signal, ids in item_lists.items():
        for position, item_id in enumerate(ids, start=1):
            item_ranks.setdefault(item_id, {}).setdefault(signal, position)
    hits = []
    for item_id, episode in episode_of.items():
        by_episode = episode_ranks.get(episode, {})
        own = item_ranks.get(item_id, {})
        ranks = {**by_episode, **own}
        if context is None:
            score = sum(
                (1.0 if signal in own else episode_weight) / (k + rank)
                for signal, rank in ranks.items()
            )
        else:
            mine = [1.0 / (k + r) for s, r in own.items() if s not in context]
            around = [1.0 / (k + r) for s, r in ranks.items() if s in context or s in by_episode]
            score = sum(mine) + episode_weight * max(around, default=0.0)
        hits.append(FusedHit(item_id=item_id, score=score, ranks=ranks))
    hits.sort(key=lambda h: (-h.score, min(h.ranks.values(), default=10**9), h.item_id))
    return hits
