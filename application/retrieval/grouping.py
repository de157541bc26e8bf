"""Context packs read as conversations: chosen turns grouped by episode, in turn order.

An agent reading "user: I moved to Lisbon" needs the assistant's reply and
the date beside it, not scattered between other talks; so the best episode
comes first and its turns keep the order they were spoken in.
"""

from collections.abc import Sequence

from application.retrieval.pipeline import Retrieved

__all__ = ["group_by_episode"]


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
