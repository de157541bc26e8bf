"""Inputs and outputs of the wake pack, validated once here for every surface."""

from datetime import datetime

import msgspec

from domain.errors import InvalidInputError
from domain.reasons import ReasonCode
from domain.scopes import MemoryScope
from domain.wake import DEFAULT_WAKE_BUDGET, MAX_WAKE_BUDGET, WakeSection

__all__ = ["WakeItem", "WakePack", "WakeRequest"]


class WakeRequest(msgspec.Struct, frozen=True, kw_only=True):
    org_id: str
    #: ``scope[/key]``: only that space (it must be readable); every readable space otherwise
    space: str | None = None
    token_budget: int = DEFAULT_WAKE_BUDGET

    def validate(self) -> None:
        if not 1 <= self.token_budget <= MAX_WAKE_BUDGET:
            raise InvalidInputError(
                ReasonCode.BUDGET_OUT_OF_RANGE,
                f"token_budget must be between 1 and {MAX_WAKE_BUDGET}",
            )


class WakeItem(msgspec.Struct, frozen=True, kw_only=True):
    """One thing that matters now, with the raw sources it stands on and why it was chosen.

    ``entity_id`` names the promoted record it comes from; a raw fallback item has
    none and names its chunk instead. ``supersedes``: older records it replaced (the
    trail; they are left out of the pack).
    """

    section: WakeSection
    type: str
    text: str
    reason: str
    source_ids: list[str]
    token_count: int
    scope: MemoryScope
    scope_key: str | None = None
    entity_id: str | None = None
    chunk_ids: list[str] = msgspec.field(default_factory=list)
    valid_from: datetime | None = None
    stale: bool = False
    supersedes: list[str] = msgspec.field(default_factory=list)


class WakePack(msgspec.Struct, frozen=True, kw_only=True):
    token_budget: int
    #: tokens of ``rendered`` (headings and items), never above the budget
    token_count: int
    encoding: str
    items: list[WakeItem]
    rendered: str
    #: items considered that did not fit the budget
    omitted: int = 0
    space: str | None = None
