"""Choosing a context pack's items so that its rendering, not only its items, fits the budget.

The budget promises what an agent reads. Counting only the items' words let
a pack of many short turns render at about 2.3 times its budget (episode
headers with dates, a speaker's name per line: benchmarks/RESULTS.md). So
each item is charged what it adds to the rendering (its line, and its
episode's header when it opens one), greedily in rank order, and the result
is rendered and counted once more: while it is over (tokens do not add up
exactly across line joins), the lowest-ranked item leaves.
"""

from collections.abc import Callable, Mapping, Sequence

from application.retrieval.grouping import group_by_episode, render_groups
from application.retrieval.lifecycle import LifecycleNote
from application.retrieval.pipeline import Retrieved

__all__ = ["fit_rendered"]

#: tokens allowed for a line break and a gap mark between lines
_JOIN = 2


def fit_rendered(
    ranked: Sequence[Retrieved],
    budget: int,
    count: Callable[[str], int],
    notes: Mapping[str, LifecycleNote] | None = None,
) -> tuple[list[Retrieved], str, int]:
    """The items kept (best first), their rendering, and how many were left out."""
    if budget < 0:
        raise ValueError("budget must be >= 0")
    chosen: list[Retrieved] = []
    opened: set[str] = set()
    used = 0
    for item in ranked:
        alone = render_groups([[item]], notes)
        header = alone.split("\n", 1)[0]
        cost = count(alone) + _JOIN
        if item.chunk.source_id in opened:
            cost -= count(header)
        if used + cost <= budget:
            chosen.append(item)
            opened.add(item.chunk.source_id)
            used += cost
    rendered = render_groups(group_by_episode(chosen), notes)
    while chosen and count(rendered) > budget:
        chosen.pop()
        rendered = render_groups(group_by_episode(chosen), notes)
    return chosen, rendered, len(ranked) - len(chosen)
