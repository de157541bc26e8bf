"""Spreading results over episodes, so one long conversation cannot fill the list.

Episode-level evidence lifts every turn of a strong conversation together;
without a spread, the first results would be ten turns of one talk and a
second relevant conversation (the other half of "how many times ...") would
never be seen. The first ``per_episode`` turns of each episode come first,
in score order; the rest follow, also in score order.
"""

from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = ["spread_over_episodes"]

T = TypeVar("T")


def spread_over_episodes(
    ranked: Sequence[T], episode_of: Callable[[T], str], per_episode: int = 2
) -> list[T]:
    if per_episode < 1:
        raise ValueError("per_episode must be >= 1")
    seen: dict[str, int] = {}
    first: list[T] = []
    rest: list[T] = []
    for item in ranked:
        episode = episode_of(item)
        count = seen.get(episode, 0)
        seen[episode] = count + 1
        (first if count < per_episode else rest).append(item)
    return first + rest
