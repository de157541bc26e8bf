"""The conversation-aware steps of retrieval: a question without its speaker names, windows.

Kept apart from the pipeline so that each step is one function a test can
drive, and so the pipeline reads the same with them switched off
(``ConversationRecall.off()``).
"""

import re
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from typing import TypeVar

from application.ports import RetrievalIndex
from application.records import CandidateFilter, IndexedText, Vector
from domain.fusion import rrf_merge
from domain.ranking.spread import spread_over_episodes, spread_over_runs
from domain.windows import window_order

__all__ = ["WINDOW_EPISODES", "UnnamedSearch", "spread_turns", "unnamed_query", "window_list"]

T = TypeVar("T")

#: episodes (those of the best turns first) whose turns form windows
WINDOW_EPISODES = 12
#: speaker names remembered per organisation for the unnamed-query hint
_MAX_KNOWN_SPEAKERS = 1000


def unnamed_query(query: str, speakers: Iterable[str]) -> str | None:
    """The query without the speaker names it contains, or None when it names none.

    "What sports does Mateo do?" embeds near every turn that mentions a name
    and near no turn of Mateo's, whose words never say "Mateo": the meaning
    to search for is "What sports does do?". A name is matched as a whole
    word, with a possessive ("Mateo's"), case-insensitively.
    """
    names = sorted({s for s in speakers if s.strip()}, key=len, reverse=True)
    if not names:
        return None
    pattern = re.compile(
        r"\b(?:" + "|".join(re.escape(n) for n in names) + r")(?:'s|’s)?\b", re.IGNORECASE
    )
    stripped, count = pattern.subn(" ", query)
    if not count:
        return None
    words = " ".join(stripped.split())
    return words if any(ch.isalnum() for ch in words) else None


def window_list(
    turn_lists: Mapping[str, Sequence[str]],
    chunks: Mapping[str, IndexedText],
    members: Mapping[str, Sequence[str]],
    radius: int,
    limit: int,
) -> list[str]:
    """Turn ids by the best window (turn +- ``radius``) holding them, at most ``limit``.

    A turn scores its RRF over the turn signals; ``members`` holds the admitted
    turns of each episode in reading order (the candidate filter already
    left out hidden, redacted and unreadable turns).
    """
    scores = {h.item_id: h.score for h in rrf_merge(turn_lists) if h.item_id in chunks}
    return window_order(members, scores, radius)[:limit]


def spread_turns(
    ranked: Sequence[T], chunk_of: Callable[[T], IndexedText], per_episode: int, by_runs: bool
) -> list[T]:
    """The per-episode spread, counting runs of neighbouring turns or (as before) single turns."""
    if by_runs:
        return spread_over_runs(
            ranked, lambda r: chunk_of(r).source_id, lambda r: chunk_of(r).turn_index, per_episode
        )
    return spread_over_episodes(ranked, lambda r: chunk_of(r).source_id, per_episode)


class UnnamedSearch:
    """The vector leg run again for a query without the speaker names it holds.

    Which words are speaker names is known only once the candidates are read
    (their speakers); a second embedding then would add a round trip to every
    such search. So names met among an organisation's candidates are kept as
    a hint: a query holding one is embedded without it at once, beside the
    query itself, and that search is used only if the name is a speaker of
    this caller's own candidates; otherwise it runs after, as it must.
    """

    def __init__(
        self, index: RetrievalIndex, query_vector: Callable[[str], Awaitable[Vector]]
    ) -> None:
        self._index = index
        self._query_vector = query_vector
        self._speakers: dict[str, set[str]] = {}

    def guess(self, org_id: str, query: str) -> str | None:
        """The query without speaker names this organisation's searches have met, if any."""
        return unnamed_query(query, self._speakers.get(org_id, ()))

    async def search(
        self,
        org_id: str,
        query: str,
        depth: int,
        where: CandidateFilter,
        chunks: Mapping[str, IndexedText],
        guessed: tuple[str | None, list[str]],
    ) -> list[str] | None:
        """The unnamed vector list, or None when the query names none of the speakers.

        ``guessed``: the guess and its result list, when one was searched beside the query.
        """
        speakers = {c.speaker for c in chunks.values() if c.speaker}
        known = self._speakers.setdefault(org_id, set())
        if len(known) < _MAX_KNOWN_SPEAKERS:
            known.update(speakers)
        plain = unnamed_query(query, speakers)
        if plain is None:
            return None
        if plain == guessed[0]:
            return [cid for cid in guessed[1] if cid in chunks]
        hits = await self._index.vector(org_id, await self._query_vector(plain), depth, where)
        return [h.item_id for h in hits]
