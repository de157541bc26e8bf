"""Control-plane use cases for memory spaces: create, enable writes, members, list.

A space's creator becomes its owner, so whoever makes a project space can use
it at once; members are managed by the organisation's admins and the space's
owners, and ownership only by owners (``domain.policy.administration``).
"""

from application.trust.admin_base import AdminBase, check_name
from application.trust.records import MembershipRecord, PrincipalRecord, SpaceRecord
from domain.errors import InvalidInputError, NotFoundError
from domain.models import PrincipalKind
from domain.policy import SpaceRole, Surface
from domain.policy.administration import may_change_space_role
from domain.reasons import ReasonCode
from domain.scopes import KEYED_SCOPES, MemoryScope, ScopeRef

__all__ = ["SpaceAdmin"]


class SpaceAdmin(AdminBase):
    async def create_space(
        self,
        org_id: str,
        ref: ScopeRef,
        name: str,
        admin: PrincipalRecord | None,
        surface: Surface,
        *,
        writes_enabled: bool = False,
        owner: str | None = None,
    ) -> SpaceRecord:
        """A new space; ``owner`` (a user's name or id) owns it, by default its creator."""
        self._require_admin(admin, org_id)
        owner_id = await self._owner_of_new_space(org_id, owner, admin)
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
            name=check_name(name, "space"),
            writes_enabled=writes_enabled,
            created_by=admin.principal_id if admin else "operator",
            created_at=self._clock.now(),
        )
        await self._control.add_space(space)
        self._note(admin, org_id, "admin.space.create", [space.space_id], surface)
        if owner_id is not None:
            await self._put_member(space, owner_id, SpaceRole.OWNER, admin, surface)
        return space

    async def _owner_of_new_space(
        self, org_id: str, owner: str | None, admin: PrincipalRecord | None
    ) -> str | None:
        if owner is None:
            creator_inside = admin is not None and admin.org_id == org_id
            return admin.principal_id if creator_inside and admin is not None else None
        record = await self.principal(org_id, owner)
        if record.kind is not PrincipalKind.USER:
            raise InvalidInputError(ReasonCode.INVALID_REQUEST, "a space is owned by a user")
        return record.principal_id

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
        space = await self.space(org_id, space_id)
        member = await self.principal(org_id, principal)
        roles = {m.principal_id: m.role for m in await self._control.members_of(org_id, space_id)}
        own_role = roles.get(admin.principal_id) if admin is not None else None
        reason = may_change_space_role(
            self.administrator(admin), org_id, own_role, roles.get(member.principal_id), role
        )
        self._require(
            reason,
            admin,
            org_id,
            "admin.space.member",
            [space.space_id, member.principal_id],
            surface,
            "members are managed by admins and the space's owners; its ownership "
            "only by its owners or the organisation's owners",
        )
        return await self._put_member(space, member.principal_id, role, admin, surface)

    async def _put_member(
        self,
        space: SpaceRecord,
        principal_id: str,
        role: SpaceRole,
        admin: PrincipalRecord | None,
        surface: Surface,
    ) -> MembershipRecord:
        membership = MembershipRecord(
            org_id=space.org_id,
            space_id=space.space_id,
            principal_id=principal_id,
            role=role,
            added_at=self._clock.now(),
        )
        await self._control.put_membership(membership)
        self._note(
            admin, space.org_id, "admin.space.member", [space.space_id, principal_id], surface
        )
        return membership

    async def list_spaces(self, org_id: str, admin: PrincipalRecord | None) -> list[SpaceRecord]:
        self._require_admin(admin, org_id)
        return await self._control.list_spaces(org_id)
