"""Filling a token budget with offers, best first, and trimming a rendering back under it.

Offers come in the order they should be considered. Each is taken whole if it
still fits; one that does not fit is passed over, since a shorter offer after
it may still fit, so the budget is never exceeded and no item is cut in half.
An offer may open a group (an episode's header, a wake section's heading):
what it costs can depend on whether it is the first taken from its group.

The parts' counts need not add up to the whole's (tokens merge across the
joins), so a caller renders what was taken, counts it once more, and drops the
last offer taken while the rendering is over (``trim_to_budget``).
"""

from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

__all__ = ["fill_budget", "trim_to_budget"]

T = TypeVar("T")
R = TypeVar("R")


def fill_budget(
    groups: Sequence[Hashable], cost: Callable[[int, bool], int], budget: int
) -> list[int]:
    """The positions of the offers taken, in order.

    ``groups[n]``: the group of the ``n``-th offer; ``cost(n, opens)``: what it costs,
    ``opens`` telling whether it would be the first offer taken from its group.
    """
    if budget < 0:
        raise ValueError("a budget is not negative")
    taken: list[int] = []
    opened: set[Hashable] = set()
    used = 0
    for n, group in enumerate(groups):
        spent = cost(n, group not in opened)
        if used + spent <= budget:
            taken.append(n)
            opened.add(group)
            used += spent
    return taken


def trim_to_budget(
    taken: list[T], render: Callable[[list[T]], R], size: Callable[[R], int], budget: int
) -> tuple[list[T], R]:
    """``taken`` less its last items while its rendering's ``size`` is over ``budget``
    (never less than nothing), and that rendering."""
    rendered = render(taken)
    while taken and size(rendered) > budget:
        taken.pop()
        rendered = render(taken)
    return taken, rendered
