"""What inspect shows of a source's lifecycle, per caller (docs/design.md#lifecycle).

The owner of a source, and whoever may correct it (space writers and owners,
organisation admins), inspect it as "owner, admin"; everyone else who may
read its space as "others". What each gets (text, metadata, the redaction's
summary, a tombstone, or nothing) comes from ``domain.lifecycle.exposure``.
"""

import msgspec

from domain.lifecycle import CorrectionAction, Exposure, Purpose, exposure, plan
from domain.models import CorrectionRecord, Source
from domain.policy import MemoryPolicyContext, recall_owners
from domain.reasons import ReasonCode
from domain.scopes import LifecycleState, MemoryScope

__all__ = [
    "ActionView",
    "Visibility",
    "available_actions",
    "history_for",
    "inspect_exposure",
    "is_owner",
    "visibility",
    "withheld_reason",
]


class ActionView(msgspec.Struct, frozen=True, kw_only=True):
    """A correction this caller may make now; every one is previewed before it is applied."""

    action: CorrectionAction
    reversible: bool
    preview_required: bool = True
    #: the field naming another source this action needs (supersede, mark_duplicate)
    needs: str | None = None


_NEEDS = {
    CorrectionAction.SUPERSEDE: "replacement_id",
    CorrectionAction.MARK_DUPLICATE: "canonical_id",
}

_WITHHELD = {
    Exposure.METADATA: None,
    Exposure.SUMMARY: ReasonCode.REDACTED_SOURCE,
    Exposure.TOMBSTONE: ReasonCode.SOURCE_DELETED,
}


def is_owner(ctx: MemoryPolicyContext, source: Source) -> bool:
    return source.owner in recall_owners(ctx)


def inspect_exposure(ctx: MemoryPolicyContext, source: Source, may_correct: bool) -> Exposure:
    """TEXT, METADATA, SUMMARY, TOMBSTONE or NOTHING for this caller."""
    owner = is_owner(ctx, source)
    purpose = Purpose.INSPECT_OWNER if owner or may_correct else Purpose.INSPECT_OTHER
    shown = exposure(source.lifecycle, source.marks, purpose)
    if shown is Exposure.OWNER_ONLY:
        return Exposure.TEXT if owner else Exposure.METADATA
    return shown


def withheld_reason(source: Source, shown: Exposure) -> ReasonCode | None:
    """Why the text is not shown (None when it is)."""
    if shown is Exposure.TEXT:
        return None
    reason = _WITHHELD.get(shown)
    if reason is not None:
        return reason
    if source.lifecycle is LifecycleState.HIDDEN:
        return ReasonCode.HIDDEN_SOURCE
    return ReasonCode.SENSITIVE_SOURCE if source.marks else ReasonCode.HIDDEN_SOURCE


def available_actions(source: Source, may_correct: bool) -> list[ActionView]:
    if not may_correct:
        return []
    views = []
    for action in CorrectionAction:
        outcome = plan(action, source.lifecycle, source.marks)
        if outcome.allowed:
            views.append(
                ActionView(action=action, reversible=outcome.reversible, needs=_NEEDS.get(action))
            )
    return views


def history_for(source: Source, privileged: bool) -> list[CorrectionRecord]:
    """The correction trail; the correctors' own words only for owners and admins."""
    if privileged:
        return list(source.corrections)
    return [msgspec.structs.replace(c, reason=None) for c in source.corrections]


class Visibility(msgspec.Struct, frozen=True, kw_only=True):
    """Who can read a source, in words: its space's readers, narrowed by its lifecycle."""

    space: str
    readers: list[str]


_SPACE_READERS = {
    MemoryScope.PRIVATE: ["its owner", "the owner's agents while a delegation is live"],
    MemoryScope.DELEGATED: ["members of the space", "their agents while a delegation is live"],
    MemoryScope.ORGANIZATION: ["every principal of the organisation"],
    MemoryScope.PUBLIC: ["every principal of the organisation"],
}
_MEMBERS = ["members of the space", "agents of members while a delegation is live"]


def visibility(source: Source) -> Visibility:
    space = str(source.scope) + (f"/{source.scope_key}" if source.scope_key else "")
    readers = list(_SPACE_READERS.get(source.scope, _MEMBERS))
    recall = exposure(source.lifecycle, source.marks, Purpose.RECALL)
    if recall in (Exposure.NOTHING, Exposure.WITHHELD):
        readers = ["nobody through search or packs", "its owner and correctors through inspect"]
    elif recall is Exposure.OWNER_ONLY:
        readers = ["its owner only (sensitive)"]
    return Visibility(space=space, readers=readers)
