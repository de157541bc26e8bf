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
    max_run: int = 2,
) -> list[T]:
    """As ``spread_over_episodes``, but the cap counts runs of neighbouring turns.

    A turn next to one already placed from its episode (a reply after its
    question) joins that run instead of using up the episode's share: the
    per-episode cap counted single turns and pushed the answer out from
    behind the question it answers. Items without a position count alone.

    A run holds at most ``max_run`` turns (two: a question and its reply).
    Unbounded, runs grew along a talk of alternating turns (every turn of a
    user/assistant session is next to another speaker's) and one session
    filled the list: on LongMemEval dev a counting question saw four turns of
    one session before a second session, the cap of one per episode undone.
    """
    if per_episode < 1:
        raise ValueError("per_episode must be >= 1")
    if max_run < 1:
        raise ValueError("max_run must be >= 1")
    runs: dict[str, int] = {}
    #: per episode: placed position -> the run it belongs to; per run: its size
    placed: dict[str, dict[int, int]] = {}
    sizes: dict[tuple[str, int], int] = {}
    first: list[T] = []
    rest: list[T] = []
    for item in ranked:
        episode = episode_of(item)
        at = position_of(item)
        mine = placed.setdefault(episode, {})
        joins = None
        if at is not None:
            joins = next(
                (
                    mine[n]
                    for n in (at - 1, at + 1)
                    if n in mine and sizes[(episode, mine[n])] < max_run
                ),
                None,
            )
        if joins is not None or runs.get(episode, 0) < per_episode:
            if joins is None:
                joins = runs.get(episode, 0)
                runs[episode] = joins + 1
                sizes[(episode, joins)] = 0
            sizes[(episode, joins)] += 1
            if at is not None:
                mine[at] = joins
            first.append(item)
        else:
            rest.append(item)
    return first + rest
