"""Control-plane use cases for memory spaces: create, enable writes, members, list."""

from application.trust.admin_base import AdminBase, check_name
from application.trust.records import MembershipRecord, PrincipalRecord, SpaceRecord
from domain.errors import InvalidInputError, NotFoundError
from domain.policy import SpaceRole, Surface
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
            name=check_name(name, "space"),
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

    async def list_spaces(self, org_id: str, admin: PrincipalRecord | None) -> list[SpaceRecord]:
        self._require_admin(admin, org_id)
        return await self._control.list_spaces(org_id)
