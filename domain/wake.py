"""The wake pack's shape: which sections it has, and how a small budget is shared.

A wake pack answers "what matters now" without a query, in at most
``MAX_WAKE_BUDGET`` tokens: active decisions, open tasks, preferences and
recent memory. Filling greedily in section order would let ten decisions
crowd out every task, so the budget is shared round-robin: each section in
turn offers its next item (best first), taken when it fits (with the
section's heading the first time). Pure: the counts come from the caller's
token counter.
"""

from collections.abc import Mapping, Sequence
from enum import StrEnum

from domain.budget import fill_budget
from domain.reflection.candidates import CandidateType

__all__ = [
    "DEFAULT_WAKE_BUDGET",
    "MAX_WAKE_BUDGET",
    "SECTION_TITLES",
    "WakeSection",
    "section_of",
    "share_budget",
]

#: docs/design.md#context-and-wake-packs: wake packs stay under 1,200 tokens
MAX_WAKE_BUDGET = 1_200
DEFAULT_WAKE_BUDGET = MAX_WAKE_BUDGET


class WakeSection(StrEnum):
    """In the order a wake pack shows them (and offers items round-robin)."""

    DECISIONS = "decisions"
    TASKS = "tasks"
    PREFERENCES = "preferences"
    RECENT = "recent"


SECTION_TITLES: Mapping[WakeSection, str] = {
    WakeSection.DECISIONS: "Active decisions",
    WakeSection.TASKS: "Open tasks",
    WakeSection.PREFERENCES: "Preferences",
    WakeSection.RECENT: "Recent memory",
}

_SECTIONS: Mapping[CandidateType, WakeSection] = {
    CandidateType.DECISION: WakeSection.DECISIONS,
    CandidateType.TASK: WakeSection.TASKS,
    CandidateType.PREFERENCE: WakeSection.PREFERENCES,
    CandidateType.EVENT: WakeSection.RECENT,
    CandidateType.FACT: WakeSection.RECENT,
}


def section_of(kind: CandidateType) -> WakeSection | None:
    """Where a derived record of this type goes; None: not wake material (a person ...)."""
    return _SECTIONS.get(kind)


def share_budget(
    costs: Mapping[WakeSection, Sequence[int]],
    heading_costs: Mapping[WakeSection, int],
    budget: int,
) -> dict[WakeSection, list[int]]:
    """The indexes taken from each section's list (best first), within ``budget`` in all.

    Round-robin over the sections in ``WakeSection`` order; an item that does not fit
    is passed over (a shorter one after it may still fit). A section's heading is
    paid once, with its first item.
    """
    offers = [
        (section, n)
        for n in range(max((len(c) for c in costs.values()), default=0))
        for section in WakeSection
        if n < len(costs.get(section, ()))
    ]

    def cost(at: int, opens: bool) -> int:
        section, n = offers[at]
        return costs[section][n] + (heading_costs.get(section, 0) if opens else 0)

    taken: dict[WakeSection, list[int]] = {s: [] for s in WakeSection}
    for at in fill_budget([section for section, _ in offers], cost, budget):
        section, n = offers[at]
        taken[section].append(n)
    return {s: picked for s, picked in taken.items() if picked}
