"""Filling a context pack to a token budget.

Items arrive best first. Each is taken whole if it still fits; one that does
not fit is skipped (a smaller, lower-ranked item may still fit), so the pack
never exceeds the budget and never cuts a citation in half.
"""

from collections.abc import Sequence

import msgspec

__all__ = ["PackCandidate", "PackSelection", "select_within_budget"]


class PackCandidate(msgspec.Struct, frozen=True, kw_only=True):
    item_id: str
    token_count: int

    def __post_init__(self) -> None:
        if self.token_count < 0:
            raise ValueError("token_count must be >= 0")


class PackSelection(msgspec.Struct, frozen=True, kw_only=True):
    chosen: list[str]
    token_count: int
    skipped_over_budget: int


def select_within_budget(candidates: Sequence[PackCandidate], budget: int) -> PackSelection:
    if budget < 0:
        raise ValueError("budget must be >= 0")
    chosen: list[str] = []
    used = 0
    skipped = 0
    for candidate in candidates:
        if used + candidate.token_count <= budget:
            chosen.append(candidate.item_id)
            used += candidate.token_count
        else:
            skipped += 1
    return PackSelection(chosen=chosen, token_count=used, skipped_over_budget=skipped)
