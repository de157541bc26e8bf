"""What a correction preview and apply answer: ids, counts and states, never text."""

from datetime import datetime

import msgspec

from domain.lifecycle import CorrectionAction, Mark
from domain.scopes import LifecycleState

__all__ = ["CorrectionApplied", "CorrectionPreview", "RecallImpact"]


class RecallImpact(msgspec.Struct, frozen=True, kw_only=True):
    """How search and packs change: for readers of the space, and for the source's owner."""

    #: chunks that stop being returned to readers of the space (to the owner)
    leaving: int = 0
    leaving_for_owner: int = 0
    #: chunks that start being returned again
    entering: int = 0
    entering_for_owner: int = 0
    #: chunks still returned, but ranked below fresh evidence or their replacement
    demoted_chunk_ids: list[str] = msgspec.field(default_factory=list)
    #: chunks collapsed under a canonical source
    collapsed_chunk_ids: list[str] = msgspec.field(default_factory=list)
    #: chunks whose text and vectors are removed for good
    text_removed: int = 0
    #: characters of the source's text removed for good, and characters kept (redact, delete)
    chars_removed: int = 0
    chars_kept: int = 0


class CorrectionPreview(msgspec.Struct, frozen=True, kw_only=True):
    source_id: str
    action: CorrectionAction
    version: int
    state: LifecycleState
    marks: list[Mark]
    resulting_state: LifecycleState
    resulting_marks: list[Mark]
    reversible: bool
    affected_source_ids: list[str]
    affected_chunk_ids: list[str]
    impact: RecallImpact
    #: the action name the apply's audit receipt will carry
    audit_action: str
    #: hand this back to apply; bound to this caller, source, request and version
    preview_token: str


class CorrectionApplied(msgspec.Struct, frozen=True, kw_only=True):
    source_id: str
    action: CorrectionAction
    version: int
    state: LifecycleState
    marks: list[Mark]
    superseded_by: str | None = None
    duplicate_of: str | None = None
    reversible: bool
    applied_at: datetime
    affected_chunk_ids: list[str]
