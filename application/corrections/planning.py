"""Turning a planned transition into the corrected source and its recall impact.

Pure functions over the domain rule: the service loads, authorizes and
writes; this module only says what the source becomes and what that changes.
"""

from datetime import datetime

import msgspec

from application.corrections.commands import CorrectionRequest
from application.corrections.results import RecallImpact
from domain.lifecycle import RECALL_CLOSED, RECALL_OPEN, CorrectionAction, Transition, demoted
from domain.models import Chunk, CorrectionRecord, Source
from domain.scopes import LifecycleState
from domain.withheld_match import REDACTED_MARK, stand_in

__all__ = ["REDACTED_MARK", "corrected", "drops_text", "impact", "redacted_text"]

_DROPS_TEXT = frozenset({CorrectionAction.REDACT, CorrectionAction.DELETE})


def drops_text(action: CorrectionAction) -> bool:
    return action in _DROPS_TEXT


def redacted_text(text: str, request: CorrectionRequest) -> str:
    """The whole text gives way to the summary (or the mark); spans give way one by one,
    each to the mark holding the summary, and the text around them stays."""
    if not request.spans:
        return request.summary or REDACTED_MARK
    kept: list[str] = []
    at = 0
    mark = stand_in(request.summary)
    for span in sorted(request.spans, key=lambda s: s.start):
        kept += [text[at : span.start], mark]
        at = span.end  # the service refuses a span past the end
    kept.append(text[at:])
    return "".join(kept)


def corrected(
    source: Source,
    request: CorrectionRequest,
    outcome: Transition,
    *,
    actor_id: str,
    agent_id: str | None,
    now: datetime,
) -> Source:
    """The source after the correction: new state, marks, links, version and history."""
    state = outcome.state
    keep_link = state is source.lifecycle
    superseded_by = request.replacement_id or (source.superseded_by if keep_link else None)
    duplicate_of = request.canonical_id or (source.duplicate_of if keep_link else None)
    version = source.version + 1
    record = CorrectionRecord(
        action=request.action,
        actor_id=actor_id,
        agent_id=agent_id,
        at=now,
        version=version,
        reason=request.reason,
        target_id=request.target_id,
    )
    changes: dict[str, object] = {}
    if request.action is CorrectionAction.DELETE:
        # a tombstone: ids, hashes, who, when, why; no text and no metadata
        changes = {"content": "", "metadata": {}}
    elif request.action is CorrectionAction.REDACT:
        changes = {"content": redacted_text(source.content, request), "metadata": {}}
    return msgspec.structs.replace(
        source,
        lifecycle=state,
        marks=outcome.marks,
        superseded_by=superseded_by if state is LifecycleState.SUPERSEDED else None,
        duplicate_of=duplicate_of if state is LifecycleState.DUPLICATE else None,
        version=version,
        corrections=(*source.corrections, record),
        **changes,
    )


def _chars_removed(source: Source, request: CorrectionRequest) -> int:
    if request.action is CorrectionAction.REDACT and request.spans:
        return sum(s.end - s.start for s in request.spans)
    return len(source.content) if drops_text(request.action) else 0


def impact(
    before: Source, after: Source, chunks: list[Chunk], request: CorrectionRequest
) -> RecallImpact:
    """How many chunks leave or enter search and packs, for readers and for the owner, and
    how much of the text a redaction or delete removes (counts, never text)."""
    removed = drops_text(request.action)
    chars_removed = _chars_removed(before, request)
    ids = [c.chunk_id for c in chunks]
    n = len(ids)

    def open_to(source: Source, owner: bool) -> bool:
        key = source.recall
        return key == RECALL_OPEN or (owner and key not in (RECALL_OPEN, RECALL_CLOSED))

    def count(owner: bool, leaving: bool) -> int:
        was, now = open_to(before, owner), open_to(after, owner) and not removed
        return n if (was and not now if leaving else now and not was) else 0

    newly_demoted = demoted(after.lifecycle, after.marks) and not demoted(
        before.lifecycle, before.marks
    )
    newly_collapsed = (
        after.lifecycle is LifecycleState.DUPLICATE
        and before.lifecycle is not LifecycleState.DUPLICATE
    )
    return RecallImpact(
        leaving=count(False, True),
        leaving_for_owner=count(True, True),
        entering=count(False, False),
        entering_for_owner=count(True, False),
        demoted_chunk_ids=ids if newly_demoted and open_to(after, True) else [],
        collapsed_chunk_ids=ids if newly_collapsed else [],
        text_removed=n if removed else 0,
        chars_removed=chars_removed,
        chars_kept=len(before.content) - chars_removed if removed else 0,
    )
