"""Finding control-plane records by what people type: a name or an id.

Not found is an error with a reason (404), never None, so every surface
answers an unknown name the same way.
"""

from application.trust.ports import ControlStore
from application.trust.records import Organization, PrincipalRecord, SpaceRecord
from domain.errors import NotFoundError
from domain.reasons import ReasonCode

__all__ = ["organization_named", "principal_named", "space_with_id"]


async def organization_named(control: ControlStore, name_or_id: str) -> Organization:
    org = await control.get_organization(name_or_id)
    org = org or await control.find_organization(name_or_id)
    if org is None:
        raise NotFoundError(ReasonCode.NOT_FOUND, f"no organisation named {name_or_id!r}")
    return org


async def principal_named(control: ControlStore, org_id: str, name_or_id: str) -> PrincipalRecord:
    found = await control.get_principal(org_id, name_or_id)
    found = found or await control.find_principal(org_id, name_or_id)
    if found is None:
        raise NotFoundError(ReasonCode.NOT_FOUND, f"no principal named {name_or_id!r}")
    return found


async def space_with_id(control: ControlStore, org_id: str, space_id: str) -> SpaceRecord:
    found = await control.get_space(org_id, space_id)
    if found is None:
        raise NotFoundError(ReasonCode.NOT_FOUND, f"no space with id {space_id!r}")
    return found
