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
from domain.budget import fill_budget, trim_to_budget

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

    def cost(n: int, opens: bool) -> int:
        alone = render_groups([[ranked[n]]], notes)
        joined = count(alone) + _JOIN
        return joined if opens else joined - count(alone.split("\n", 1)[0])

    taken = fill_budget([item.chunk.source_id for item in ranked], cost, budget)
    chosen, rendered = trim_to_budget(
        [ranked[n] for n in taken],
        lambda kept: render_groups(group_by_episode(kept), notes),
        count,
        budget,
    )
    return chosen, rendered, len(ranked) - len(chosen)
