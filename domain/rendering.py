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

An episode is cited by its number in the pack (``[1]`` for the first block),
not by its source id: a source id costs about 24 tokens, and on real chat a
pack holds a dozen episodes, so the ids took about 15 % of the budget from the
turns (docs/decisions/learned-ranker.md). The pack's ``episodes`` list, in
the same order, holds each number's source id.
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


def _header(episode: PackEpisode, number: int, numbers: dict[str, int]) -> str:
    kind = "Conversation" if any(line.role for line in episode.lines) else "Source"
    when = f" of {_when(episode.occurred_at)}" if episode.occurred_at else " (date unknown)"
    replaced = episode.superseded_by
    if replaced:
        # by its number when the replacing source is in the pack too, else by its id
        by = f"[{numbers[replaced]}]" if replaced in numbers else f"source {replaced}"
        when += f" — superseded by {by}"
    elif episode.stale:
        when += " — marked stale"
    return f"## [{number}] {kind}{when}"


def _line(line: PackLine, episode_time: datetime | None) -> str:
    words = " ".join(line.text.split())
    who = line.speaker or line.role  # a name says more than a role, in fewer tokens
    if who:
        words = f"{who}: {words}"
    if line.occurred_at and line.occurred_at != episode_time:
        words = f"[{_when(line.occurred_at)}] {words}"
    return words


def render_pack(episodes: Sequence[PackEpisode]) -> str:
    """Plain text, one block per episode (best episode first, numbered from 1 in that
    order), blank line between blocks."""
    blocks = []
    numbers = {e.source_id: n for n, e in enumerate(episodes, start=1)}
    for number, episode in enumerate(episodes, start=1):
        out = [_header(episode, number, numbers)]
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
