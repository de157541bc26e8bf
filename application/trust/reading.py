"""What reflection may read: active sources the caller may read, and why the others are not.

One rule for reflect, propose, review and the derived records' re-check, so
a candidate or an entity never shows text its reader could not recall.
"""

from collections.abc import Sequence

from application.ports import MemoryStore
from application.ports.records import SourceLifecycle
from application.trust.guard import read_decision
from domain.models import Source
from domain.policy import MemoryPolicyContext, authorize_read
from domain.reasons import ReasonCode
from domain.scopes import LifecycleState, ScopeRef

__all__ = ["all_readable", "read_sources", "unreadable_reason"]


def unreadable_reason(
    policy: MemoryPolicyContext, source: Source | SourceLifecycle | None
) -> ReasonCode | None:
    """None when reflection may read it; else why not.

    A source in a space the caller may not read is ``not_found``, as if it did
    not exist; in a readable space, the lifecycle's own reason (hidden_source ...).
    """
    if source is None:
        return ReasonCode.NOT_FOUND
    decision = read_decision(policy, source)
    if not decision.allowed:
        if not authorize_read(policy, ScopeRef(source.scope, source.scope_key)).allowed:
            return ReasonCode.NOT_FOUND
        return decision.reason
    if source.lifecycle is not LifecycleState.ACTIVE:
        return ReasonCode.SOURCE_NOT_ACTIVE
    return None


async def read_sources(
    store: MemoryStore, policy: MemoryPolicyContext, org_id: str, source_ids: Sequence[str]
) -> tuple[list[Source], dict[str, ReasonCode]]:
    """The readable, active sources among ``source_ids`` (first-seen order), and the rest's
    reasons."""
    wanted = list(dict.fromkeys(source_ids))
    found = await store.get_sources(org_id, wanted)
    readable: list[Source] = []
    refused: dict[str, ReasonCode] = {}
    for sid in wanted:
        source = found.get(sid)
        reason = unreadable_reason(policy, source)
        if reason is None and source is not None:
            readable.append(source)
        else:
            refused[sid] = reason or ReasonCode.NOT_FOUND
    return readable, refused


async def all_readable(
    store: MemoryStore, policy: MemoryPolicyContext, org_id: str, source_ids: Sequence[str]
) -> set[str]:
    """Which of ``source_ids`` reflection may read now: active, and readable by the caller
    (no text loaded). A derived record or candidate needs every one of its sources here."""
    lifecycles = await store.source_lifecycles(org_id, list(dict.fromkeys(source_ids)))
    return {sid for sid, lc in lifecycles.items() if unreadable_reason(policy, lc) is None}
