"""Ports of the trust layer: the control plane's store and the audit log.

Each has a contract suite in ``contracts/`` that every adapter passes.
Uniqueness is the store's job, so two processes cannot both win a race:
an organisation name is unique, a principal name is unique in its
organisation, a (scope, scope key) names one space per organisation, and a
principal holds one membership per space (adding it again replaces the role).
"""

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol, runtime_checkable

from application.trust.records import (
    ApiKeyRecord,
    AuditReceipt,
    DelegationRecord,
    MembershipRecord,
    Organization,
    PrincipalRecord,
    SpaceRecord,
)
from domain.scopes import ScopeRef

__all__ = ["AuditLog", "ControlStore"]


@runtime_checkable
class ControlStore(Protocol):
    """Organisations, principals, API keys, memory spaces, memberships and delegations."""

    async def add_organization(self, org: Organization) -> None:
        """Raises ConflictError(already_exists) when the id or the name is taken."""
        ...

    async def get_organization(self, org_id: str) -> Organization | None: ...

    async def find_organization(self, name: str) -> Organization | None: ...

    async def list_organizations(self) -> list[Organization]: ...

    async def add_principal(self, principal: PrincipalRecord) -> None:
        """Raises ConflictError(already_exists) when the id or the name is taken in the org."""
        ...

    async def get_principal(self, org_id: str, principal_id: str) -> PrincipalRecord | None: ...

    async def find_principal(self, org_id: str, name: str) -> PrincipalRecord | None: ...

    async def list_principals(self, org_id: str) -> list[PrincipalRecord]: ...

    async def add_key(self, key: ApiKeyRecord) -> None: ...

    async def get_key(self, key_id: str) -> ApiKeyRecord | None:
        """Any organisation's key by id: authentication starts from the key alone."""
        ...

    async def list_keys(self, org_id: str) -> list[ApiKeyRecord]: ...

    async def revoke_key(self, key_id: str, at: datetime) -> ApiKeyRecord | None:
        """Mark the key revoked (keeping the first revocation time); None if unknown."""
        ...

    async def add_space(self, space: SpaceRecord) -> None:
        """Raises ConflictError(already_exists) when (scope, scope key) exists in the org."""
        ...

    async def get_space(self, org_id: str, space_id: str) -> SpaceRecord | None: ...

    async def find_space(self, org_id: str, ref: ScopeRef) -> SpaceRecord | None: ...

    async def list_spaces(self, org_id: str) -> list[SpaceRecord]: ...

    async def set_writes_enabled(
        self, org_id: str, space_id: str, enabled: bool
    ) -> SpaceRecord | None: ...

    async def put_membership(self, membership: MembershipRecord) -> None:
        """Add a member to a space, or change their role."""
        ...

    async def memberships_of(self, org_id: str, principal_id: str) -> list[MembershipRecord]: ...

    async def members_of(self, org_id: str, space_id: str) -> list[MembershipRecord]: ...

    async def add_delegation(self, delegation: DelegationRecord) -> None: ...

    async def delegations_of(self, org_id: str, agent_id: str) -> list[DelegationRecord]:
        """Delegations naming the agent, live, expired or revoked."""
        ...

    async def revoke_delegation(
        self, org_id: str, delegation_id: str, at: datetime
    ) -> DelegationRecord | None:
        """Mark the delegation revoked (keeping the first revocation time); None if unknown
        in the organisation."""
        ...

    async def remove_organization(self, org_id: str) -> None:
        """Remove the organisation's row and every principal, key, space, membership and
        delegation of it; nothing of another organisation. Removing an unknown one is a no-op."""
        ...

    async def close(self) -> None: ...


@runtime_checkable
class AuditLog(Protocol):
    """Receipts for allowed and denied operations, kept per organisation."""

    async def record(self, receipts: Sequence[AuditReceipt]) -> None: ...

    async def recent(self, org_id: str, limit: int) -> list[AuditReceipt]:
        """The newest receipts of the organisation, newest first."""
        ...

    async def recent_by(
        self, org_id: str, actor_id: str, actions: Sequence[str], limit: int
    ) -> list[AuditReceipt]:
        """The newest receipts of one actor (a user, with its agents) for these actions,
        newest first: what the workspace shows a person of their own activity."""
        ...

    async def recent_naming(
        self, org_id: str, ids: Sequence[str], scanned: int, limit: int
    ) -> list[AuditReceipt]:
        """Of the ``scanned`` newest receipts of the organisation, the first ``limit`` that
        name one of ``ids``, newest first: who read or changed a source lately."""
        ...
