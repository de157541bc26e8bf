"""What a share preview and apply take and answer: ids, counts and reasons, never text."""

import hashlib
from enum import StrEnum

import msgspec

from application.memory.commands import check_scope_key
from domain.errors import InvalidInputError
from domain.lifecycle import Mark
from domain.models import PrincipalKind
from domain.policy.reach import ReachCounts
from domain.reasons import ReasonCode
from domain.scopes import MemoryScope, ScopeRef

__all__ = [
    "ReaderView",
    "ShareApplied",
    "ShareKind",
    "SharePreview",
    "ShareRequest",
    "space_label",
]


def space_label(ref: ScopeRef) -> str:
    """``scope[/key]``, as the API writes a space everywhere else."""
    return f"{ref.scope}/{ref.scope_key}" if ref.scope_key else str(ref.scope)


class ShareKind(StrEnum):
    #: a raw source: a copy is written into the target space, citing the original
    SOURCE = "source"
    #: a promoted entity: a copy is kept in the target space, citing the same sources
    ENTITY = "entity"


class ShareRequest(msgspec.Struct, frozen=True, kw_only=True):
    org_id: str
    kind: ShareKind
    subject_id: str
    scope: MemoryScope
    scope_key: str | None = None

    def validate(self) -> None:
        if not self.subject_id.strip():
            raise InvalidInputError(ReasonCode.INVALID_REQUEST, "name the record to share")
        check_scope_key(self.scope, self.scope_key)

    def digest(self) -> str:
        """What a preview token is bound to besides the caller and the record's state."""
        raw = "\n".join([self.kind, self.subject_id, self.scope, self.scope_key or ""])
        return hashlib.sha256(raw.encode("utf-8")).hexdigest()[:32]


class ReaderView(msgspec.Struct, frozen=True, kw_only=True):
    """A principal the share would newly reach: id, name, kind (never what they hold)."""

    principal_id: str
    name: str
    kind: PrincipalKind


class SharePreview(msgspec.Struct, frozen=True, kw_only=True):
    kind: ShareKind
    subject_id: str
    from_space: str
    to_space: str
    #: whether apply would be allowed now, and the policy's reason
    allowed: bool
    reason: ReasonCode
    #: principals who may not read the record now and would after the share (listed only
    #: when the share is allowed; counted always)
    newly_visible: list[ReaderView]
    newly_visible_users: int
    newly_visible_agents: int
    #: the target space's readers, by what they would see of the shared record
    reach: ReachCounts
    #: what the target space would hold: sources, chunks, entities, edges
    records: dict[str, int]
    #: promoted records that would be copied along (they cite only this source)
    derived_following: list[str]
    #: promoted records citing this source and others: they stay where they are
    derived_staying: int
    #: what stays withheld, by why (derived records, readers without the sources)
    withheld: dict[str, int]
    #: marks of the source that the copy does not carry (they stay on the original)
    marks_left_behind: list[Mark]
    #: bound to the caller, the request and the record's state; None when not allowed
    preview_token: str | None = None


class ShareApplied(msgspec.Struct, frozen=True, kw_only=True):
    kind: ShareKind
    subject_id: str
    to_space: str
    #: the copy's id: a new source, or a new entity
    shared_id: str
    #: the derived records copied along (new ids)
    derived_ids: list[str]
    newly_visible_users: int
    newly_visible_agents: int
