"""Recall honours corrections: the last step between the ranked chunks and the caller.

The index already left out closed rows (hidden, wrong, redacted, deleted,
and sensitive memory of others). Here each returned chunk's source is read
from the store, the truth, and checked again with its marks and owner;
then the rules that need more than one source apply (``domain.lifecycle``):

- a superseded source appears only when its replacement is visible to the
  caller too, carries ``superseded_by`` and ranks below fresh evidence;
- a stale source stays, flagged, below fresh evidence;
- a duplicate collapses under its canonical source when that one is among
  the results.
"""

from collections.abc import Sequence

import msgspec

from application.ports import MemoryStore
from application.ports.records import SourceLifecycle
from application.retrieval.pipeline import Retrieved
from application.trust.guard import may_read
from domain.lifecycle import Mark, demoted
from domain.policy import MemoryPolicyContext
from domain.ranking.reasons import RankCode, RankReason
from domain.scopes import LifecycleState

__all__ = ["LifecycleNote", "honour_corrections"]


class LifecycleNote(msgspec.Struct, frozen=True, kw_only=True):
    """What a hit says about its source's lifecycle."""

    state: LifecycleState = LifecycleState.ACTIVE
    stale: bool = False
    superseded_by: str | None = None
    duplicate_of: str | None = None


def _note(source: SourceLifecycle) -> LifecycleNote:
    return LifecycleNote(
        state=source.lifecycle,
        stale=Mark.STALE in source.marks,
        superseded_by=source.superseded_by,
        duplicate_of=source.duplicate_of,
    )


def _why_lower(source: SourceLifecycle) -> RankReason:
    if source.superseded_by:
        return RankReason(code=RankCode.SUPERSEDED, who=source.superseded_by)
    return RankReason(code=RankCode.STALE)


async def honour_corrections(
    store: MemoryStore,
    ctx: MemoryPolicyContext,
    org_id: str,
    found: Sequence[Retrieved],
    sources: dict[str, SourceLifecycle],
) -> tuple[list[Retrieved], dict[str, LifecycleNote], int]:
    """The chunks the caller may have, fresh first; their notes by chunk id; how many withheld.

    ``sources``: the lifecycles of the found chunks' sources, read with the chunks (never
    their text: a conversation's source may be long); replacements are read here if needed.
    """
    targets = {s.superseded_by for s in sources.values() if s.superseded_by} - set(sources)
    if targets:
        sources = sources | await store.source_lifecycles(org_id, sorted(targets))

    def visible(source_id: str | None) -> bool:
        source = sources.get(source_id or "")
        return source is not None and may_read(ctx, source)

    allowed: list[tuple[Retrieved, SourceLifecycle]] = []
    for r in found:
        source = sources.get(r.chunk.source_id)
        if source is None or not may_read(ctx, source):
            continue
        if source.lifecycle is LifecycleState.SUPERSEDED and not visible(source.superseded_by):
            continue
        allowed.append((r, source))
    present = {source.source_id for _, source in allowed}
    kept = [
        (r, s)
        for r, s in allowed
        if not (s.lifecycle is LifecycleState.DUPLICATE and s.duplicate_of in present)
    ]
    collapsed = len(allowed) - len(kept)
    fresh = [r for r, s in kept if not demoted(s.lifecycle, s.marks)]
    lower = [
        msgspec.structs.replace(r, reasons=[*r.reasons, _why_lower(s)])
        for r, s in kept
        if demoted(s.lifecycle, s.marks)
    ]
    notes = {r.chunk.chunk_id: _note(s) for r, s in kept}
    return fresh + lower, notes, len(found) - len(kept) - collapsed
