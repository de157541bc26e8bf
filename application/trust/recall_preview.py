"""What recall would admit of one space for one principal: the access preview's count.

Why its own rule: an access preview that looked at a source's state alone
counted a source another reader marked sensitive, a wrong one, or one
superseded by a replacement the principal cannot read, as recallable; search
returns none of them. Here each source is judged as recall judges it (see
``application.retrieval.lifecycle``): the guard's ``read_decision`` (its space,
state, marks and owner), then a superseded source only when its replacement
is readable too.
Duplicates count as recallable: they collapse only under a canonical source
returned beside them. Ids and reason codes only, never text.
"""

from collections import Counter
from collections.abc import Mapping

import msgspec

from application.ports import MemoryStore
from application.ports.records import SourceLifecycle
from application.trust.guard import may_read, read_decision
from domain.policy import MemoryPolicyContext
from domain.reasons import ReasonCode
from domain.scopes import LifecycleState, ScopeRef

__all__ = ["RecallPreview", "recall_preview", "recall_verdict"]


class RecallPreview(msgspec.Struct, frozen=True, kw_only=True):
    #: in source-id order
    recallable: list[str]
    #: why the others are not, by reason code
    deny_reasons: dict[str, int]
    #: sources not active (hidden, redacted, superseded, duplicate, deleted)
    not_active: int
    total: int


def recall_verdict(
    ctx: MemoryPolicyContext, source: SourceLifecycle, known: Mapping[str, SourceLifecycle]
) -> ReasonCode:
    """ALLOWED when recall could return the source to ``ctx``; ``known`` holds its replacement."""
    reason = read_decision(ctx, source).reason
    if reason is not ReasonCode.ALLOWED or source.lifecycle is not LifecycleState.SUPERSEDED:
        return reason
    replacement = known.get(source.superseded_by or "")
    if replacement is None or not may_read(ctx, replacement):
        return ReasonCode.REPLACEMENT_NOT_VISIBLE
    return ReasonCode.ALLOWED


async def recall_preview(
    store: MemoryStore, ctx: MemoryPolicyContext, space: ScopeRef, limit: int
) -> RecallPreview:
    """At most ``limit`` sources of the space, each judged as recall would judge it for ``ctx``."""
    states = await store.source_states(ctx.org_id, space, limit)
    known = await store.source_lifecycles(ctx.org_id, [s.source_id for s in states])
    replacements = {s.superseded_by for s in known.values() if s.superseded_by} - set(known)
    if replacements:
        known = {**known, **await store.source_lifecycles(ctx.org_id, sorted(replacements))}
    recallable: list[str] = []
    reasons: Counter[str] = Counter()
    for state in states:
        source = known.get(state.source_id)
        verdict = ReasonCode.NOT_FOUND if source is None else recall_verdict(ctx, source, known)
        if verdict is ReasonCode.ALLOWED:
            recallable.append(state.source_id)
        else:
            reasons[str(verdict)] += 1
    return RecallPreview(
        recallable=recallable,
        deny_reasons=dict(reasons),
        not_active=sum(1 for s in states if s.lifecycle is not LifecycleState.ACTIVE),
        total=len(states),
    )
