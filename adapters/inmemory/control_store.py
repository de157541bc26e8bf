"""The reference ControlStore: plain dicts, the same promises as the SurrealDB one.

Unit tests use it as a fake, so it keeps every rule the contract suite checks:
ids unique across the control plane (a key is found by its id alone), names
unique per organisation, one space per (scope, key) and organisation, one
membership per principal and space, the first revocation time kept, naive
datetimes refused, and lists ordered by id. Records are frozen and hold no
mutable values, so handing out the stored objects is safe.
"""

from datetime import datetime
from typing import TypeVar

import msgspec

from application.trust.records import (
    ApiKeyRecord,
    DelegationRecord,
    MembershipRecord,
    Organization,
    PrincipalRecord,
    SpaceRecord,
)
from domain.errors import ConflictError, InvalidInputError
from domain.reasons import ReasonCode
from domain.scopes import ScopeRef

__all__ = ["InMemoryControlStore"]

_R = TypeVar("_R", bound=msgspec.Struct)


def _require_aware(*values: datetime | None) -> None:
    for value in values:
        if value is not None and value.utcoffset() is None:
            raise InvalidInputError(
                ReasonCode.INVALID_REQUEST, "datetimes must be timezone-aware to be stored"
            )


def _conflict(what: str) -> ConflictError:
    return ConflictError(ReasonCode.ALREADY_EXISTS, f"{what} already exists")


def _in_org(record: _R | None, org_id: str) -> _R | None:
    return record if record is not None and getattr(record, "org_id", None) == org_id else None


class InMemoryControlStore:
    def __init__(self) -> None:
        self._orgs: dict[str, Organization] = {}
        self._principals: dict[str, PrincipalRecord] = {}
        self._keys: dict[str, ApiKeyRecord] = {}
        self._spaces: dict[str, SpaceRecord] = {}
        self._memberships: dict[tuple[str, str, str], MembershipRecord] = {}
        self._delegations: dict[str, DelegationRecord] = {}

    async def add_organization(self, org: Organization) -> None:
        _require_aware(org.created_at)
        if org.org_id in self._orgs or any(o.name == org.name for o in self._orgs.values()):
            raise _conflict("an organisation with this id or name")
        self._orgs[org.org_id] = org

    async def get_organization(self, org_id: str) -> Organization | None:
        return self._orgs.get(org_id)

    async def find_organization(self, name: str) -> Organization | None:
        return next((o for o in self._orgs.values() if o.name == name), None)

    async def list_organizations(self) -> list[Organization]:
        return [self._orgs[k] for k in sorted(self._orgs)]

    async def add_principal(self, principal: PrincipalRecord) -> None:
        _require_aware(principal.created_at)
        if principal.principal_id in self._principals or any(
            p.org_id == principal.org_id and p.name == principal.name
            for p in self._principals.values()
        ):
            raise _conflict("a principal with this id, or with this name in the organisation,")
        self._principals[principal.principal_id] = principal

    async def get_principal(self, org_id: str, principal_id: str) -> PrincipalRecord | None:
        return _in_org(self._principals.get(principal_id), org_id)

    async def find_principal(self, org_id: str, name: str) -> PrincipalRecord | None:
        return next(
            (p for p in self._principals.values() if p.org_id == org_id and p.name == name), None
        )

    async def list_principals(self, org_id: str) -> list[PrincipalRecord]:
        return [p for _, p in sorted(self._principals.items()) if p.org_id == org_id]

    async def add_key(self, key: ApiKeyRecord) -> None:
        _require_aware(key.created_at, key.revoked_at)
        if key.key_id in self._keys:
            raise _conflict("an API key with this id")
        self._keys[key.key_id] = key

    async def get_key(self, key_id: str) -> ApiKeyRecord | None:
        return self._keys.get(key_id)

    async def list_keys(self, org_id: str) -> list[ApiKeyRecord]:
        return [k for _, k in sorted(self._keys.items()) if k.org_id == org_id]

    async def revoke_key(self, key_id: str, at: datetime) -> ApiKeyRecord | None:
        _require_aware(at)
        key = self._keys.get(key_id)
        if key is None:
            return None
        if key.revoked_at is None:
            key = self._keys[key_id] = msgspec.structs.replace(key, revoked_at=at)
        return key

    async def add_space(self, space: SpaceRecord) -> None:
        _require_aware(space.created_at)
        if space.space_id in self._spaces or any(
            s.org_id == space.org_id and s.ref == space.ref for s in self._spaces.values()
        ):
            raise _conflict("a space with this id, or with this scope and key in the organisation,")
        self._spaces[space.space_id] = space

    async def get_space(self, org_id: str, space_id: str) -> SpaceRecord | None:
        return _in_org(self._spaces.get(space_id), org_id)

    async def find_space(self, org_id: str, ref: ScopeRef) -> SpaceRecord | None:
        return next((s for s in self._spaces.values() if s.org_id == org_id and s.ref == ref), None)

    async def list_spaces(self, org_id: str) -> list[SpaceRecord]:
        return [s for _, s in sorted(self._spaces.items()) if s.org_id == org_id]

    async def set_writes_enabled(
        self, org_id: str, space_id: str, enabled: bool
    ) -> SpaceRecord | None:
        space = _in_org(self._spaces.get(space_id), org_id)
        if space is None:
            return None
        space = self._spaces[space_id] = msgspec.structs.replace(
            space, writes_enabled=bool(enabled)
        )
        return space

    async def put_membership(self, membership: MembershipRecord) -> None:
        _require_aware(membership.added_at)
        key = (membership.org_id, membership.space_id, membership.principal_id)
        self._memberships[key] = membership

    async def memberships_of(self, org_id: str, principal_id: str) -> list[MembershipRecord]:
        return [
            m
            for (org, _, who), m in sorted(self._memberships.items())
            if org == org_id and who == principal_id
        ]

    async def members_of(self, org_id: str, space_id: str) -> list[MembershipRecord]:
        return [
            m
            for (org, space, _), m in sorted(self._memberships.items())
            if org == org_id and space == space_id
        ]

    async def add_delegation(self, delegation: DelegationRecord) -> None:
        _require_aware(delegation.expires_at, delegation.created_at, delegation.revoked_at)
        if delegation.delegation_id in self._delegations:
            raise _conflict("a delegation with this id")
        self._delegations[delegation.delegation_id] = delegation

    async def delegations_of(self, org_id: str, agent_id: str) -> list[DelegationRecord]:
        return [
            d
            for _, d in sorted(self._delegations.items())
            if d.org_id == org_id and d.agent_id == agent_id
        ]

    async def revoke_delegation(
        self, org_id: str, delegation_id: str, at: datetime
    ) -> DelegationRecord | None:
        _require_aware(at)
        found = self._delegations.get(delegation_id)
        if found is None or found.org_id != org_id:
            return None
        if found.revoked_at is None:
            found = self._delegations[delegation_id] = msgspec.structs.replace(found, revoked_at=at)
        return found

    async def remove_organization(self, org_id: str) -> None:
        self._orgs.pop(org_id, None)
        for table in (self._principals, self._keys, self._spaces, self._delegations):
            for key in [k for k, r in table.items() if r.org_id == org_id]:
                del table[key]
        for mkey in [k for k, m in self._memberships.items() if m.org_id == org_id]:
            del self._memberships[mkey]

    async def close(self) -> None:
        """Nothing to release."""
