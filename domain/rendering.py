"""A context pack as a reader reads it: episodes with their dates, turns with their speakers.

An agent handed scattered fragments cannot answer "when did Maya run a
marathon?" from "I ran my first marathon last weekend!": it needs who said
it and the date of the conversation it was said in ("last weekend" of
which week?). So each episode opens with its date (weekday included, for
"last Friday"), each turn is written ``speaker: words`` (``role: words``
without a speaker) in the order it was spoken, and a gap between turns that
were not selected together is marked, so a reader never takes two distant
turns for an exchange. An episode whose statements were replaced says by
which source ("Maya moved from Lisbon to Porto" after "I live in Lisbon"),
so a reader does not answer from the older one.
"""

from collections.abc import Sequence
from datetime import datetime

import msgspec

__all__ = ["GAP", "PackEpisode", "PackLine", "render_pack"]

#: written between two chosen turns of one episode that were not next to each other
GAP = "…"


class PackLine(msgspec.Struct, frozen=True, kw_only=True):
    text: str
    role: str | None = None
    speaker: str | None = None
    turn_index: int | None = None
    occurred_at: datetime | None = None


class PackEpisode(msgspec.Struct, frozen=True, kw_only=True):
    """One episode's chosen lines, already in reading order."""

    source_id: str
    occurred_at: datetime | None
    lines: list[PackLine]
    #: the source that replaced this one (a correction's supersede), if any
    superseded_by: str | None = None
    #: marked stale by a correction: may be out of date
    stale: bool = False


def _when(moment: datetime) -> str:
    return moment.strftime("%A %Y-%m-%d %H:%M %z").rstrip()


def _header(episode: PackEpisode) -> str:
    kind = "Conversation" if any(line.role for line in episode.lines) else "Source"
    when = f" of {_when(episode.occurred_at)}" if episode.occurred_at else " (date unknown)"
    notes = [f"source {episode.source_id}"]
    if episode.superseded_by:
        notes.append(f"superseded by source {episode.superseded_by}")
    elif episode.stale:
        notes.append("marked stale")
    return f"## {kind}{when} [{'; '.join(notes)}]"


def _line(line: PackLine, episode_time: datetime | None) -> str:
    words = " ".join(line.text.split())
    who = line.speaker or line.role  # a name says more than a role, in fewer tokens
    if who:
        words = f"{who}: {words}"
    if line.occurred_at and line.occurred_at != episode_time:
        words = f"[{_when(line.occurred_at)}] {words}"
    return words


def render_pack(episodes: Sequence[PackEpisode]) -> str:
    """Plain text, one block per episode (best episode first), blank line between blocks."""
    blocks = []
    for episode in episodes:
        out = [_header(episode)]
        previous: int | None = None
        for line in episode.lines:
            at = line.turn_index
            if previous is not None and at is not None and at > previous + 1:
                out.append(GAP)
            out.append(_line(line, episode.occurred_at))
            if at is not None:
                previous = at
        blocks.append("\n".join(out))
    return "\n\n".join(blocks)
