"""Context packs read as conversations: chosen turns grouped by episode, in turn order.

An agent reading "user: I moved to Lisbon" needs the assistant's reply and
the date beside it, not scattered between other talks; so the best episode
comes first and its turns keep the order they were spoken in.
"""

from collections.abc import Mapping, Sequence

from application.retrieval.lifecycle import LifecycleNote
from application.retrieval.pipeline import Retrieved
from domain.rendering import PackEpisode, PackLine, render_pack

__all__ = ["group_by_episode", "render_groups"]


def group_by_episode(ranked: Sequence[Retrieved]) -> list[list[Retrieved]]:
    """Episodes ordered by their best item; inside one, by turn index then chunk ordinal."""
    groups: dict[str, list[Retrieved]] = {}
    for item in ranked:
        groups.setdefault(item.chunk.source_id, []).append(item)
    return [
        sorted(
            members,
            key=lambda r: (
                r.chunk.turn_index if r.chunk.turn_index is not None else -1,
                r.chunk.ordinal,
            ),
        )
        for members in groups.values()
    ]


def render_groups(
    groups: Sequence[Sequence[Retrieved]], notes: Mapping[str, LifecycleNote] | None = None
) -> str:
    """The grouped pack as text a reader can answer from (``domain.rendering``).

    ``notes``: lifecycle notes by chunk id; a superseded or stale episode says so.
    """
    notes = notes or {}

    def note(group: Sequence[Retrieved]) -> LifecycleNote:
        return notes.get(group[0].chunk.chunk_id) or LifecycleNote()

    return render_pack(
        [
            PackEpisode(
                source_id=group[0].chunk.source_id,
                occurred_at=min(
                    (r.chunk.occurred_at for r in group if r.chunk.occurred_at), default=None
                ),
                lines=[
                    PackLine(
                        text=r.chunk.text,
                        role=r.chunk.role,
                        speaker=r.chunk.speaker,
                        turn_index=r.chunk.turn_index,
                        occurred_at=r.chunk.occurred_at,
                    )
                    for r in group
                ],
                superseded_by=note(group).superseded_by,
                stale=note(group).stale,
            )
            for group in groups
            if group
        ]
    )
