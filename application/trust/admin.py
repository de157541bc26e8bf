"""Control-plane use cases: organisations, principals, keys, spaces, delegations.

Who may do them: the local operator (someone with the data directory, so
``admin`` is ``None``), the owner of the home organisation for creating
organisations, and an organisation's owners and admins for everything
inside it. Every change is audited and drops the access cache.
"""

from datetime import timedelta

from application.ports import Clock, IdGenerator
from application.trust.access import AccessResolver
from application.trust.audit import AuditTrail
from application.trust.keys import IssuedKey, compose_key, hash_secret, new_secret
from application.trust.lookup import organization_named, principal_named, space_with_id
from application.trust.ports import ControlStore
from application.trust.records import (
    ApiKeyRecord,
    DelegationRecord,
    MembershipRecord,
    Organization,
    PrincipalRecord,
    SpaceRecord,
)
from domain.errors import InvalidInputError, NotFoundError, PolicyDeniedError
from domain.models import PrincipalKind
from domain.policy import MemoryPolicyContext, OrgRole, SpaceRole, Surface
from domain.reasons import ReasonCode
from domain.scopes import KEYED_SCOPES, MemoryScope, ScopeRef

__all__ = ["ControlService"]

_MAX_NAME = 120


def _check_name(name: str, what: str) -> str:
    name = name.strip()
    if not name or len(name) > _MAX_NAME:
        raise InvalidInputError(
            ReasonCode.INVALID_REQUEST, f"{what} name must be 1 to {_MAX_NAME} characters"
        )
    return name


class ControlService:
    def __init__(
        self,
        *,
        control: ControlStore,
        access: AccessResolver,
        audit: AuditTrail,
        clock: Clock,
        ids: IdGenerator,
        home_org_id: str,
    ) -> None:
        self._control = control
        self._access = access
        self._audit = audit
        self._clock = clock
        self._ids = ids
        self.home_org_id = home_org_id

    # -- who may ------------------------------------------------------------

    def is_operator(self, admin: PrincipalRecord | None) -> bool:
        """The data directory's holder, or the home organisation's owner: runs the install."""
        return admin is None or (
            admin.org_id == self.home_org_id and admin.org_role is OrgRole.OWNER
        )

    def _require_admin(self, admin: PrincipalRecord | None, org_id: str) -> None:
        if self.is_operator(admin):
            return
        assert admin is not None
        if admin.org_id != org_id or not admin.org_role.administers or admin.acting_for:
            raise PolicyDeniedError(
                ReasonCode.ADMIN_REQUIRED, "this needs an owner or admin of the organisation"
            )

    def _note(
        self,
        admin: PrincipalRecord | None,
        org_id: str,
        action: str,
        ids: list[str],
        surface: Surface,
    ) -> None:
        ctx = MemoryPolicyContext(
            org_id=org_id,
            actor=None,
            surface=surface,
            now=self._clock.now(),
            audit_id=self._ids.new_id(),
        )
        actor_ids = [admin.principal_id] if admin is not None else []
        self._audit.note(ctx, action, ids=[*actor_ids, *ids])
        self._access.forget()

    # -- lookups by name or id ----------------------------------------------

    async def organization(self, name_or_id: str) -> Organization:
        return await organization_named(self._control, name_or_id)

    async def principal(self, org_id: str, name_or_id: str) -> PrincipalRecord:
        return await principal_named(self._control, org_id, name_or_id)

    async def space(self, org_id: str, space_id: str) -> SpaceRecord:
        return await space_with_id(self._control, org_id, space_id)

    # -- changes --------------------------------------------------------------

    async def create_organization(
        self, name: str, admin: PrincipalRecord | None, surface: Surface, org_id: str | None = None
    ) -> Organization:
        is_home_owner = (
            admin is not None
            and admin.org_id == self.home_org_id
            and admin.org_role is OrgRole.OWNER
        )
        if admin is not None and not is_home_owner:
            raise PolicyDeniedError(
                ReasonCode.ADMIN_REQUIRED,
                "creating organisations needs the home organisation's owner",
            )
        org = Organization(
            org_id=org_id or self._ids.new_id(),
            name=_check_name(name, "organisation"),
            created_at=self._clock.now(),
        )
        await self._control.add_organization(org)
        self._note(admin, org.org_id, "admin.org.create", [org.org_id], surface)
        return org

    async def create_principal(
        self,
        org_id: str,
        name: str,
        admin: PrincipalRecord | None,
        surface: Surface,
        *,
        acting_for: str | None = None,
        org_role: OrgRole = OrgRole.MEMBER,
        delegation_days: int = 0,
    ) -> PrincipalRecord:
        """A user, or (with ``acting_for``) an agent with an optional delegation from its user."""
        self._require_admin(admin, org_id)
        user = None if acting_for is None else await self.principal(org_id, acting_for)
        if user is not None and user.kind is not PrincipalKind.USER:
            raise InvalidInputError(ReasonCode.INVALID_REQUEST, "an agent acts for a user")
        if user is not None and org_role is not OrgRole.MEMBER:
            raise InvalidInputError(ReasonCode.INVALID_REQUEST, "agents cannot administer")
        record = PrincipalRecord(
            principal_id=self._ids.new_id(),
            org_id=org_id,
            name=_check_name(name, "principal"),
            kind=PrincipalKind.USER if user is None else PrincipalKind.AGENT,
            acting_for=None if user is None else user.principal_id,
            org_role=org_role,
            created_at=self._clock.now(),
        )
        await self._control.add_principal(record)
        self._note(admin, org_id, f"admin.{record.kind}.create", [record.principal_id], surface)
        if user is not None and delegation_days > 0:
            await self.delegate(
                org_id, user.principal_id, record.principal_id, delegation_days, admin, surface
            )
        return record

    async def delegate(
        self,
        org_id: str,
        user_id: str,
        agent_id: str,
        days: int,
        admin: PrincipalRecord | None,
        surface: Surface,
    ) -> DelegationRecord:
        self._require_admin(admin, org_id)
        if not 0 < days <= 3650:
            raise InvalidInputError(ReasonCode.INVALID_REQUEST, "a delegation lasts 1 to 3650 days")
        now = self._clock.now()
        delegation = DelegationRecord(
            delegation_id=self._ids.new_id(),
            org_id=org_id,
            user_id=user_id,
            agent_id=agent_id,
            expires_at=now + timedelta(days=days),
            created_at=now,
        )
        await self._control.add_delegation(delegation)
        self._note(admin, org_id, "admin.delegation.create", [user_id, agent_id], surface)
        return delegation

    async def create_key(
        self, org_id: str, principal_id: str, admin: PrincipalRecord | None, surface: Surface
    ) -> IssuedKey:
        self._require_admin(admin, org_id)
        principal = await self.principal(org_id, principal_id)
        key_id, secret = self._ids.new_id(), new_secret()
        await self._control.add_key(
            ApiKeyRecord(
                key_id=key_id,
                org_id=org_id,
                principal_id=principal.principal_id,
                secret_hash=hash_secret(secret),
                created_at=self._clock.now(),
            )
        )
        self._note(admin, org_id, "admin.key.create", [key_id, principal.principal_id], surface)
        return IssuedKey(
            key_id=key_id,
            org_id=org_id,
            principal_id=principal.principal_id,
            key=compose_key(key_id, secret),
        )

    async def revoke_key(
        self, key_id: str, admin: PrincipalRecord | None, surface: Surface
    ) -> ApiKeyRecord:
        key = await self._control.get_key(key_id)
        # another organisation's key id means nothing to a non-operator: not found
        foreign = (
            key is not None
            and admin is not None
            and not self.is_operator(admin)
            and admin.org_id != key.org_id
        )
        if key is None or foreign:
            raise NotFoundError(ReasonCode.NOT_FOUND, f"no key with id {key_id!r}")
        self._require_admin(admin, key.org_id)
        revoked = await self._control.revoke_key(key_id, self._clock.now())
        assert revoked is not None
        self._note(admin, key.org_id, "admin.key.revoke", [key_id], surface)
        return revoked

    async def list_keys(self, org_id: str, admin: PrincipalRecord | None) -> list[ApiKeyRecord]:
        self._require_admin(admin, org_id)
        return await self._control.list_keys(org_id)

    async def create_space(
        self,
        org_id: str,
        ref: ScopeRef,
        name: str,
        admin: PrincipalRecord | None,
        surface: Surface,
        *,
        writes_enabled: bool = False,
    ) -> SpaceRecord:
        self._require_admin(admin, org_id)
        if ref.scope is MemoryScope.PRIVATE:
            raise InvalidInputError(ReasonCode.INVALID_REQUEST, "private memory needs no space")
        if ref.scope in KEYED_SCOPES and not ref.scope_key:
            raise InvalidInputError(
                ReasonCode.MISSING_SCOPE_KEY, f"scope '{ref.scope}' needs a key"
            )
        if ref.scope not in KEYED_SCOPES and ref.scope_key is not None:
            raise InvalidInputError(
                ReasonCode.INVALID_SCOPE_KEY, f"scope '{ref.scope}' takes no key"
            )
        space = SpaceRecord(
            space_id=self._ids.new_id(),
            org_id=org_id,
            scope=ref.scope,
            scope_key=ref.scope_key,
            name=_check_name(name, "space"),
            writes_enabled=writes_enabled,
            created_by=admin.principal_id if admin else "operator",
            created_at=self._clock.now(),
        )
        await self._control.add_space(space)
        self._note(admin, org_id, "admin.space.create", [space.space_id], surface)
        return space

    async def set_writes(
        self,
        org_id: str,
        space_id: str,
        enabled: bool,
        admin: PrincipalRecord | None,
        surface: Surface,
    ) -> SpaceRecord:
        self._require_admin(admin, org_id)
        space = await self._control.set_writes_enabled(org_id, space_id, enabled)
        if space is None:
            raise NotFoundError(ReasonCode.NOT_FOUND, f"no space with id {space_id!r}")
        self._note(admin, org_id, "admin.space.writes", [space_id], surface)
        return space

    async def add_member(
        self,
        org_id: str,
        space_id: str,
        principal: str,
        role: SpaceRole,
        admin: PrincipalRecord | None,
        surface: Surface,
    ) -> MembershipRecord:
        self._require_admin(admin, org_id)
        space = await self.space(org_id, space_id)
        member = await self.principal(org_id, principal)
        membership = MembershipRecord(
            org_id=org_id,
            space_id=space.space_id,
            principal_id=member.principal_id,
            role=role,
            added_at=self._clock.now(),
        )
        await self._control.put_membership(membership)
        self._note(
            admin, org_id, "admin.space.member", [space.space_id, member.principal_id], surface
        )
        return membership

    async def list_principals(
        self, org_id: str, admin: PrincipalRecord | None
    ) -> list[PrincipalRecord]:
        self._require_admin(admin, org_id)
        return await self._control.list_principals(org_id)

    async def list_spaces(self, org_id: str, admin: PrincipalRecord | None) -> list[SpaceRecord]:
        self._require_admin(admin, org_id)
        return await self._control.list_spaces(org_id)

    async def bootstrap(self, surface: Surface) -> IssuedKey | None:
        """On an empty control plane: the home organisation, its owner and the owner's key."""
        if await self._control.list_organizations():
            return None
        org = await self.create_organization("local", None, surface, org_id=self.home_org_id)
        owner = await self.create_principal(
            org.org_id, "owner", None, surface, org_role=OrgRole.OWNER
        )
        return await self.create_key(org.org_id, owner.principal_id, None, surface)
