"""Spreading results over episodes, so one long conversation cannot fill the list.

Episode-level evidence lifts every turn of a strong conversation together;
without a spread, the first results would be ten turns of one talk and a
second relevant conversation (the other half of "how many times ...") would
never be seen. The first ``per_episode`` turns of each episode come first,
in score order; the rest follow, also in score order.
"""

from collections.abc import Callable, Sequence
from typing import TypeVar

__all__ = ["spread_over_episodes", "spread_over_runs"]

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


def spread_over_runs(
    ranked: Sequence[T],
    episode_of: Callable[[T], str],
    position_of: Callable[[T], int | None],
    per_episode: int = 2,
) -> list[T]:
    """As ``spread_over_episodes``, but the cap counts runs of neighbouring turns.

    A turn next to one already placed from its episode (a reply after its
    question) joins that run instead of using up the episode's share: the
    per-episode cap counted single turns and pushed the answer out from
    behind the question it answers. Items without a position count alone.
    """
    if per_episode < 1:
        raise ValueError("per_episode must be >= 1")
    runs: dict[str, int] = {}
    placed: dict[str, set[int]] = {}
    first: list[T] = []
    rest: list[T] = []
    for item in ranked:
        episode = episode_of(item)
        at = position_of(item)
        mine = placed.setdefault(episode, set())
        joins = at is not None and (at - 1 in mine or at + 1 in mine)
        if joins or runs.get(episode, 0) < per_episode:
            if not joins:
                runs[episode] = runs.get(episode, 0) + 1
            if at is not None:
                mine.add(at)
            first.append(item)
        else:
            rest.append(item)
    return first + rest
