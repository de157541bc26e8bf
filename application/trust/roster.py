"""Who belongs where: a space's members and the organisation's delegations, for admins.

Why its own use case: the memory workspace's access page answers "who can
see this space, and which agents act for whom"; the control plane had ways
to add members and delegations but none to list them. Owners and admins of
the organisation only (``admin_required`` otherwise), like every other
control-plane read; ids, names and dates, never memory.
"""

from application.trust.admin_base import AdminBase
from application.trust.records import DelegationRecord, MembershipRecord, PrincipalRecord
from domain.models import PrincipalKind

__all__ = ["Roster"]


class Roster(AdminBase):
    async def members(
        self, org_id: str, space_id: str, admin: PrincipalRecord | None
    ) -> list[MembershipRecord]:
        """The space's members (``not_found`` for a space of another organisation)."""
        self._require_admin(admin, org_id)
        space = await self.space(org_id, space_id)
        return await self._control.members_of(org_id, space.space_id)

    async def delegations(
        self, org_id: str, admin: PrincipalRecord | None
    ) -> list[DelegationRecord]:
        """Every agent's delegations in the organisation, newest first."""
        self._require_admin(admin, org_id)
        found: list[DelegationRecord] = []
        for p in await self._control.list_principals(org_id):
            if p.kind is PrincipalKind.AGENT:
                found.extend(await self._control.delegations_of(org_id, p.principal_id))
        return sorted(found, key=lambda d: d.created_at, reverse=True)
