"""The control plane's records: organisations, principals, keys, spaces, grants, receipts.

These live in the ``tessera_control`` namespace (audit receipts in each
organisation's own namespace). Secrets never appear here: an API key is kept
as the SHA-256 of its secret part only.
"""

from datetime import datetime

import msgspec

from domain.models import PrincipalKind
from domain.policy import OrgRole, SpaceRole, Surface
from domain.reasons import ReasonCode
from domain.scopes import MemoryScope, ScopeRef

__all__ = [
    "ApiKeyRecord",
    "AuditReceipt",
    "DelegationRecord",
    "MembershipRecord",
    "Organization",
    "PrincipalRecord",
    "SpaceRecord",
]


class Organization(msgspec.Struct, frozen=True, kw_only=True):
    org_id: str
    name: str
    created_at: datetime


class PrincipalRecord(msgspec.Struct, frozen=True, kw_only=True):
    """A user, or an agent acting for a user (``acting_for`` is that user's id)."""

    principal_id: str
    org_id: str
    name: str
    kind: PrincipalKind
    acting_for: str | None = None
    org_role: OrgRole = OrgRole.MEMBER
    created_at: datetime


class ApiKeyRecord(msgspec.Struct, frozen=True, kw_only=True):
    key_id: str
    org_id: str
    principal_id: str
    #: hex SHA-256 of the key's secret part; the secret itself is never stored
    secret_hash: str
    created_at: datetime
    revoked_at: datetime | None = None

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None


class SpaceRecord(msgspec.Struct, frozen=True, kw_only=True):
    """A memory space: the policy boundary (scope + key), with its members elsewhere."""

    space_id: str
    org_id: str
    scope: MemoryScope
    scope_key: str | None
    name: str
    writes_enabled: bool = False
    created_by: str
    created_at: datetime

    @property
    def ref(self) -> ScopeRef:
        return ScopeRef(self.scope, self.scope_key)


class MembershipRecord(msgspec.Struct, frozen=True, kw_only=True):
    org_id: str
    space_id: str
    principal_id: str
    role: SpaceRole
    added_at: datetime


class DelegationRecord(msgspec.Struct, frozen=True, kw_only=True):
    delegation_id: str
    org_id: str
    user_id: str
    agent_id: str
    expires_at: datetime
    created_at: datetime
    #: when its user (or an admin) ended it early; a revoked delegation grants nothing
    revoked_at: datetime | None = None

    def live_at(self, now: datetime) -> bool:
        return self.revoked_at is None and now < self.expires_at


class AuditReceipt(msgspec.Struct, frozen=True, kw_only=True):
    """Who did what, where, with which decision. Ids, counts and hashes; never text."""

    receipt_id: str
    org_id: str
    at: datetime
    actor_id: str | None
    agent_id: str | None
    surface: Surface
    action: str
    allowed: bool
    reason: ReasonCode
    scope: MemoryScope | None = None
    scope_key: str | None = None
    ids: list[str] = msgspec.field(default_factory=list)
    counts: dict[str, int] = msgspec.field(default_factory=dict)
    hashes: dict[str, str] = msgspec.field(default_factory=dict)
