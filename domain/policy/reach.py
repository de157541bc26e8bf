"""Who a record reaches: the rule behind share and promotion previews.

A derived record (an entity, a relationship) is shown to a reader only if
the reader may read the record's own space *and* every raw source it cites,
in the state that source is in now. Previews of a share or a promotion ask
this one rule for every principal of the organisation, so a preview can
never promise an audience that retrieval would then refuse, and an entity
derived from private memory never counts as visible to someone who cannot
read that memory.

Why the reasons are folded into four buckets: a person deciding whether to
share wants "who will see it, and why not the others" (a source hidden or
redacted, or plainly not theirs to read), not the policy's full vocabulary.
"""

from collections.abc import Iterable, Sequence
from enum import StrEnum

import msgspec

from domain.lifecycle import Mark
from domain.policy.context import MemoryPolicyContext
from domain.policy.rules import authorize_read
from domain.reasons import ReasonCode
from domain.scopes import LifecycleState, ScopeRef

__all__ = ["Cited", "Reach", "ReachCounts", "counts_of", "derived_read_reason", "reach_of"]


class Cited(msgspec.Struct, frozen=True, kw_only=True):
    """What the policy needs of one cited source: its space, state, marks and owner."""

    ref: ScopeRef
    lifecycle: LifecycleState
    marks: frozenset[Mark] = frozenset()
    owner: str | None = None


class Reach(StrEnum):
    """Why a reader of the target space would (not) see the record."""

    VISIBLE = "visible"
    #: a cited source is hidden
    HIDDEN = "hidden"
    #: a cited source is redacted
    REDACTED = "redacted"
    #: any other refusal: the source's space is not the reader's, a delegation ran out ...
    DENIED = "denied"


class ReachCounts(msgspec.Struct, frozen=True, kw_only=True):
    """How many readers of the target space fall in each bucket (no ids, no text)."""

    visible: int = 0
    hidden: int = 0
    redacted: int = 0
    denied: int = 0


def derived_read_reason(
    ctx: MemoryPolicyContext, scope: ScopeRef, cited: Sequence[Cited]
) -> ReasonCode:
    """ALLOWED when ``ctx`` may see a record kept in ``scope`` that cites ``cited``.

    The record's space first, then each source in its current state; a
    source that is no longer active (superseded, duplicate) withholds the
    record as reflection does (``source_not_active``).
    """
    decision = authorize_read(ctx, scope)
    if not decision.allowed:
        return decision.reason
    for source in cited:
        read = authorize_read(ctx, source.ref, source.lifecycle, source.marks, source.owner)
        if not read.allowed:
            return read.reason
        if source.lifecycle is not LifecycleState.ACTIVE:
            return ReasonCode.SOURCE_NOT_ACTIVE
    return ReasonCode.ALLOWED


def _bucket(reason: ReasonCode) -> Reach:
    if reason is ReasonCode.ALLOWED:
        return Reach.VISIBLE
    if reason is ReasonCode.HIDDEN_SOURCE:
        return Reach.HIDDEN
    if reason is ReasonCode.REDACTED_SOURCE:
        return Reach.REDACTED
    return Reach.DENIED


def reach_of(
    readers: Iterable[MemoryPolicyContext], scope: ScopeRef, cited: Sequence[Cited]
) -> dict[Reach, list[MemoryPolicyContext]]:
    """The readers of ``scope`` (those who may read the space at all), by what they would
    see of a record kept there citing ``cited``. Readers of other spaces are left out."""
    found: dict[Reach, list[MemoryPolicyContext]] = {r: [] for r in Reach}
    for reader in readers:
        if not authorize_read(reader, scope).allowed:
            continue
        found[_bucket(derived_read_reason(reader, scope, cited))].append(reader)
    return found


def counts_of(found: dict[Reach, list[MemoryPolicyContext]]) -> ReachCounts:
    return ReachCounts(**{r.value: len(found[r]) for r in Reach})

