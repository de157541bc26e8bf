"""Conversation windows: a turn read together with its neighbours, as a retrieval unit.

"Yes!! We called him Pixel" shares no word or meaning with "What did Maya
name the cat?"; the turn before it ("Did you end up adopting the cat?")
does. A window is a turn with ``radius`` turns either side, in reading
order; it scores as the sum of what its turns scored on their own, so a
window where the question and its answer both match beats one lone strong
turn, and a window hit maps back to every turn inside it (the reply comes
along with the matching question). Windows are formed from the turns the
candidate filter admitted, so a hidden or redacted neighbour is never in
one and no window carries its text or its score.
"""

from collections.abc import Mapping, Sequence

__all__ = ["window_order"]


def window_order(
    episodes: Mapping[str, Sequence[str]], turn_score: Mapping[str, float], radius: int = 1
) -> list[str]:
    """Turn ids, best first, each at the rank of the best window that holds it.

    ``episodes``: each episode's admitted turn ids in reading order;
    ``turn_score``: each turn's own score (missing: 0). Windows with no
    scoring turn are left out; ties keep the earlier episode, then turn.
    Inside a window the centre comes first, then its turns in reading order.
    """
    if radius < 1:
        raise ValueError("radius must be >= 1")
    windows: list[tuple[float, int, str, Sequence[str]]] = []
    order = 0
    for turns in episodes.values():
        for at, centre in enumerate(turns):
            members = turns[max(at - radius, 0) : at + radius + 1]
            score = sum(turn_score.get(t, 0.0) for t in members)
            if score > 0:
                windows.append((score, order, centre, members))
            order += 1
    windows.sort(key=lambda w: (-w[0], w[1]))
    ranked: dict[str, None] = {}
    for _, _, centre, members in windows:
        ranked.setdefault(centre, None)
        for turn in members:
            ranked.setdefault(turn, None)
    return list(ranked)
