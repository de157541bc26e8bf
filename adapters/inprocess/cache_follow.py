"""A write moves the per-filter caches by the rows it changed, instead of dropping them.

Why: at 1M rows a search right after a write rebuilt every per-filter value over
every row: the filter's mask (``np.isin`` over the recall and scope codes), the
episode leg's group totals (a bincount over the admitted rows) and its plan
over the episode postings (~48 of a ~176 CPU-ms search under the profiler). A write changes few
rows: the ones it appends, and the
rows of the source it hides, removes or re-indexes. Each kept mask is
recomputed at those rows alone with the same predicate that builds a whole
mask (``_OrgIndex._admits``), so the two cannot drift; the values made from a
mask move by the rows that entered or left it. What cannot be moved exactly
(the vector index's admitted bitmap, which also follows the index's own
growth, and every per-query result) is dropped and rebuilt when next wanted.
"""

from collections.abc import Hashable
from typing import Protocol, cast

import numpy as np

from adapters.inprocess import episode_postings as episodes
from adapters.inprocess.bm25 import Bm25Postings, GroupTotals
from adapters.inprocess.episode_rows import EpisodeRows
from adapters.inprocess.query_cache import Moved, QueryCache
from application.ports.records import CandidateFilter

__all__ = ["Followed", "follow"]


class Followed(Protocol):
    """What ``follow`` reads of an organisation's index (``adapters.inprocess.index``)."""

    @property
    def size(self) -> int: ...
    @property
    def source_ids(self) -> list[str]: ...
    @property
    def source_codes(self) -> np.ndarray: ...
    @property
    def lexical(self) -> Bm25Postings: ...
    @property
    def episodes(self) -> episodes.EpisodeLeg: ...
    @property
    def members(self) -> EpisodeRows: ...
    @property
    def cache(self) -> QueryCache: ...
    def _admits(self, where: CandidateFilter, rows: slice | np.ndarray) -> np.ndarray: ...


def follow(org: Followed, changed: np.ndarray) -> None:
    """Older rows ``changed`` (sorted) may be admitted otherwise now, and the rows past
    each kept mask are new: every kept mask and per-filter value of ``org`` moves by them
    (``QueryCache`` calls this at the first lookup after the writes)."""
    size = org.size

    def remask(key: Hashable, mask: np.ndarray) -> np.ndarray:
        where = cast(CandidateFilter, key)
        old = len(mask)
        inside = changed[changed < old]
        if len(inside) == 0 and old == size:
            return mask
        out = np.empty(size, dtype=bool)
        out[:old] = mask
        if len(inside):
            out[inside] = org._admits(where, inside)
        if old < size:
            out[old:] = org._admits(where, slice(old, size))
        return out

    totals_now: dict[Hashable, GroupTotals] = {}

    def rederive(key: Hashable, value: object, moved: Moved) -> object:
        if not isinstance(key, tuple) or len(key) < 2 or key[1] not in moved:
            return None
        name, where = key[0], key[1]
        before, after = moved[where]
        if name == "episode_bm25" and isinstance(value, GroupTotals):
            entered, left = _moved_rows(before, after, changed)
            if len(entered) == 0 and len(left) == 0 and len(value.counts) == len(org.source_ids):
                totals_now[where] = value
                return value
            codes = org.source_codes[:size]
            lengths = org.lexical.lengths_array()
            totals = value.moved(entered, left, codes, len(org.source_ids), lengths)
            totals_now[where] = totals
            return totals
        if name == "episode_plan" and isinstance(value, episodes.EpisodePlan):
            return _replan(org, key, value, after, totals_now.get(where), before, changed)
        return None  # the vector index's admitted rows, ``with_vector``: rebuilt when wanted

    org.cache.follow(remask, rederive)


def _moved_rows(
    before: np.ndarray, after: np.ndarray, changed: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(rows that entered the filter, rows that left it): among ``changed`` and the rows
    past ``before``."""
    old = len(before)
    inside = changed[changed < old]
    was, now = before[inside], after[inside]
    entered = inside[now & ~was]
    left = inside[was & ~now]
    if len(after) > old:
        entered = np.concatenate([entered, np.flatnonzero(after[old:]) + old])
    return entered.astype(np.int64), left.astype(np.int64)


def _replan(
    org: Followed,
    key: tuple[object, ...],
    kept: episodes.EpisodePlan,
    live: np.ndarray,
    totals: GroupTotals | None,
    before: np.ndarray,
    changed: np.ndarray,
) -> episodes.EpisodePlan | None:
    """The plan of the same postings for the moved mask (None: dropped, made afresh)."""
    postings = org.episodes.postings  # before the generation: see ``EpisodeLeg.start``
    if totals is None or len(key) < 3 or key[2] != org.episodes.generation or postings is None:
        return None
    stats = totals.stats()
    if stats is None:
        return None
    entered, left = _moved_rows(before, live, changed)
    moved_rows = np.concatenate([entered, left])
    if len(moved_rows) == 0 and live is before and len(kept.full) == len(org.source_ids):
        return kept  # nothing it reads moved (e.g. vectors arrived): the same plan
    return episodes.replan(
        kept,
        postings,
        live,
        org.source_codes[: org.size],
        len(org.source_ids),
        stats[1],
        totals.counts,
        moved_rows,
        org.members.rows,
    )
