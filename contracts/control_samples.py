"""Hand-made control-plane records for the ControlStore and AuditLog contract suites.

Fixed, timezone-aware timestamps with a non-UTC offset, so a store that
mangles instants (or refuses offsets) is caught; stores may answer the same
instant in UTC, so the suites compare datetimes as instants.
"""

from datetime import datetime, timedelta, timezone

from application.trust.records import (
    ApiKeyRecord,
    AuditReceipt,
    DelegationRecord,
    MembershipRecord,
    Organization,
    PrincipalRecord,
    SpaceRecord,
)
from domain.models import PrincipalKind
from domain.policy import OrgRole, SpaceRole, Surface
from domain.reasons import ReasonCode
from domain.scopes import MemoryScope

__all__ = [
    "AT",
    "ORG_A",
    "ORG_B",
    "delegation",
    "key",
    "membership",
    "org",
    "principal",
    "receipt",
    "space",
]

ORG_A = "org-a"
ORG_B = "org-b"
#: 2026-03-01 12:30:45.123456 at UTC-07:00
AT = datetime(2026, 3, 1, 12, 30, 45, 123456, tzinfo=timezone(timedelta(hours=-7)))


def org(org_id: str = ORG_A, name: str | None = None) -> Organization:
    return Organization(org_id=org_id, name=name or f"Name of {org_id}", created_at=AT)


def principal(
    principal_id: str,
    org_id: str = ORG_A,
    *,
    name: str | None = None,
    acting_for: str | None = None,
    role: OrgRole = OrgRole.MEMBER,
) -> PrincipalRecord:
    return PrincipalRecord(
        principal_id=principal_id,
        org_id=org_id,
        name=name or principal_id,
        kind=PrincipalKind.USER if acting_for is None else PrincipalKind.AGENT,
        acting_for=acting_for,
        org_role=role,
        created_at=AT,
    )


def key(
    key_id: str,
    org_id: str = ORG_A,
    *,
    principal_id: str = "u1",
    revoked_at: datetime | None = None,
) -> ApiKeyRecord:
    return ApiKeyRecord(
        key_id=key_id,
        org_id=org_id,
        principal_id=principal_id,
        secret_hash=f"{key_id:0>8}".encode().hex().ljust(64, "0")[:64],
        created_at=AT,
        revoked_at=revoked_at,
    )


def space(
    space_id: str,
    org_id: str = ORG_A,
    *,
    scope: MemoryScope = MemoryScope.PROJECT,
    scope_key: str | None = "p1",
    writes_enabled: bool = False,
) -> SpaceRecord:
    return SpaceRecord(
        space_id=space_id,
        org_id=org_id,
        scope=scope,
        scope_key=scope_key,
        name=f"Space {space_id}",
        writes_enabled=writes_enabled,
        created_by="u1",
        created_at=AT,
    )


def membership(
    space_id: str, principal_id: str, org_id: str = ORG_A, role: SpaceRole = SpaceRole.READER
) -> MembershipRecord:
    return MembershipRecord(
        org_id=org_id, space_id=space_id, principal_id=principal_id, role=role, added_at=AT
    )


def delegation(
    delegation_id: str,
    agent_id: str,
    org_id: str = ORG_A,
    *,
    user_id: str = "u1",
    expires_at: datetime = AT + timedelta(days=1),
) -> DelegationRecord:
    return DelegationRecord(
        delegation_id=delegation_id,
        org_id=org_id,
        user_id=user_id,
        agent_id=agent_id,
        expires_at=expires_at,
        created_at=AT,
    )


def receipt(
    receipt_id: str, org_id: str = ORG_A, *, at: datetime = AT, action: str = "recall"
) -> AuditReceipt:
    """A minimal receipt: no scope, no ids, counts or hashes."""
    return AuditReceipt(
        receipt_id=receipt_id,
        org_id=org_id,
        at=at,
        actor_id="u1",
        agent_id=None,
        surface=Surface.API,
        action=action,
        allowed=True,
        reason=ReasonCode.ALLOWED,
    )
