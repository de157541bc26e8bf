"""The conversation-aware steps of retrieval: a question without its speaker names, windows.

Kept apart from the pipeline so that each step is one function a test can
drive, and so the pipeline reads the same with them switched off
(``ConversationRecall.off()``).
"""

import re
from collections.abc import Iterable, Mapping, Sequence

from application.records import IndexedText
from domain.fusion import rrf_merge
from domain.windows import window_order

__all__ = ["WINDOW_EPISODES", "unnamed_query", "window_list"]

#: episodes (those of the best turns first) whose turns form windows
WINDOW_EPISODES = 12


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
