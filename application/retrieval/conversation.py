"""The conversation-aware steps of retrieval: a question without its speaker names, windows.

Kept apart from the pipeline so that each step is one function a test can
drive, and so the pipeline reads the same with them switched off
(``ConversationRecall.off()``).
"""

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TypeVar

from application.ports.records import CandidateFilter, IndexedText
from domain.fusion import rrf_merge
from domain.ranking.spread import spread_over_episodes, spread_over_runs
from domain.windows import window_order

__all__ = ["WINDOW_EPISODES", "UnnamedSearch", "spread_turns", "unnamed_query", "window_list"]

T = TypeVar("T")

#: episodes (those of the best turns first) whose turns form windows
WINDOW_EPISODES = 12
#: speaker names remembered per reader for the unnamed-query hint, and readers remembered
_MAX_KNOWN_SPEAKERS = 1000
_MAX_READERS = 10_000


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
    ranked: Sequence[T],
    chunk_of: Callable[[T], IndexedText],
    per_episode: int,
    by_runs: bool,
    run_turns: int = 2,
) -> list[T]:
    """The per-episode spread, counting runs of neighbouring turns (at most ``run_turns``
    each) or (as before) single turns."""
    if by_runs:
        return spread_over_runs(
            ranked,
            lambda r: chunk_of(r).source_id,
            lambda r: chunk_of(r).turn_index,
            per_episode,
            run_turns,
        )
    return spread_over_episodes(ranked, lambda r: chunk_of(r).source_id, per_episode)


class UnnamedSearch:
    """Which query the meaning legs embed: the query itself, or the query without the
    speaker names it holds.

    Which words are speaker names is known only once the candidates are read
    (their speakers); finding out and embedding again would add a round
    trip to every such search. So the names met among a reader's candidates
    are kept, per organisation and per candidate filter (what one reader's
    candidates taught is never used for another's): a query holding one is
    embedded without it from the start, and ``confirm`` says after the first
    round whether that was right (the names are speakers of these candidates).
    """

    def __init__(self) -> None:
        self._speakers: dict[tuple[str, CandidateFilter], set[str]] = {}

    def guess(self, org_id: str, where: CandidateFilter, query: str) -> str | None:
        """The query without the speaker names this reader's searches have met, if any."""
        return unnamed_query(query, self._speakers.get((org_id, where), ()))

    def confirm(
        self,
        org_id: str,
        where: CandidateFilter,
        query: str,
        chunks: Mapping[str, IndexedText],
    ) -> str:
        """The query the meaning legs should have embedded, judged by these candidates."""
        speakers = {c.speaker for c in chunks.values() if c.speaker}
        if len(self._speakers) < _MAX_READERS:
            known = self._speakers.setdefault((org_id, where), set())
            if len(known) < _MAX_KNOWN_SPEAKERS:
                known.update(speakers)
        return unnamed_query(query, speakers) or query
