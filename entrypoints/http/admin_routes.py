"""Control-plane routes under ``/api/admin``: organisations, principals, keys, spaces.

Thin: each names the organisation (the key's own unless ``org`` is given),
then calls ControlService, which decides who may.
"""

from litestar import get, post
from litestar.di import NamedDependency
from litestar.params import FromPath, FromQuery, JSONBody

from application.services import Services
from application.trust.access import Caller
from application.trust.keys import IssuedKey
from application.trust.records import (
    ApiKeyRecord,
    MembershipRecord,
    Organization,
    PrincipalRecord,
    SpaceRecord,
)
from domain.policy import Surface
from domain.scopes import ScopeRef
from entrypoints.http.schemas import (
    KeyBody,
    KeyView,
    MemberBody,
    OrgBody,
    PrincipalBody,
    SpaceBody,
    WritesBody,
)

__all__ = ["ADMIN_ROUTES"]

_API = Surface.API


def _key_view(k: ApiKeyRecord) -> KeyView:
    """A key as listed: its secret's hash stays in the control plane."""
    return KeyView(
        key_id=k.key_id,
        org_id=k.org_id,
        principal_id=k.principal_id,
        created_at=k.created_at,
        revoked_at=k.revoked_at,
    )


async def _org_id(
    services: NamedDependency[Services], caller: NamedDependency[Caller], org: str | None
) -> str:
    if org is None:
        return caller.org_id
    return (await services.control.organization(org)).org_id


@post("/api/admin/orgs", status_code=201, summary="Create an organisation (operator)")
async def create_org(
    data: JSONBody[OrgBody], services: NamedDependency[Services], caller: NamedDependency[Caller]
) -> Organization:
    return await services.control.create_organization(data.name, caller.principal, _API)


@post("/api/admin/principals", status_code=201, summary="Create a user, or an agent for a user")
async def create_principal(
    data: JSONBody[PrincipalBody],
    services: NamedDependency[Services],
    caller: NamedDependency[Caller],
) -> PrincipalRecord:
    org_id = await _org_id(services, caller, data.org)
    return await services.control.create_principal(
        org_id,
        data.name,
        caller.principal,
        _API,
        acting_for=data.acting_for,
        org_role=data.org_role,
        delegation_days=data.delegation_days,
    )


@get("/api/admin/principals", summary="List an organisation's principals")
async def list_principals(
    services: NamedDependency[Services],
    caller: NamedDependency[Caller],
    org: FromQuery[str | None] = None,
) -> list[PrincipalRecord]:
    org_id = await _org_id(services, caller, org)
    return await services.control.list_principals(org_id, caller.principal)


@post("/api/admin/keys", status_code=201, summary="Create an API key (shown once)")
async def create_key(
    data: JSONBody[KeyBody], services: NamedDependency[Services], caller: NamedDependency[Caller]
) -> IssuedKey:
    org_id = await _org_id(services, caller, data.org)
    principal = await services.control.principal(org_id, data.principal)
    return await services.control.create_key(org_id, principal.principal_id, caller.principal, _API)


@get("/api/admin/keys", summary="List API keys (never their secrets)")
async def list_keys(
    services: NamedDependency[Services],
    caller: NamedDependency[Caller],
    org: FromQuery[str | None] = None,
) -> list[KeyView]:
    org_id = await _org_id(services, caller, org)
    keys = await services.control.list_keys(org_id, caller.principal)
    return [_key_view(k) for k in keys]


@post("/api/admin/keys/{key_id:str}/revoke", status_code=200, summary="Revoke an API key")
async def revoke_key(
    key_id: FromPath[str], services: NamedDependency[Services], caller: NamedDependency[Caller]
) -> KeyView:
    k = await services.control.revoke_key(key_id, caller.principal, _API)
    return _key_view(k)


@post("/api/admin/spaces", status_code=201, summary="Create a memory space")
async def create_space(
    data: JSONBody[SpaceBody], services: NamedDependency[Services], caller: NamedDependency[Caller]
) -> SpaceRecord:
    org_id = await _org_id(services, caller, data.org)
    ref = ScopeRef(data.scope, data.scope_key)
    name = data.name or (str(data.scope) if data.scope_key is None else data.scope_key)
    return await services.spaces.create_space(
        org_id,
        ref,
        name,
        caller.principal,
        _API,
        writes_enabled=data.writes_enabled,
        owner=data.owner,
    )


@get("/api/admin/spaces", summary="List an organisation's memory spaces")
async def list_all_spaces(
    services: NamedDependency[Services],
    caller: NamedDependency[Caller],
    org: FromQuery[str | None] = None,
) -> list[SpaceRecord]:
    org_id = await _org_id(services, caller, org)
    return await services.spaces.list_spaces(org_id, caller.principal)


@post("/api/admin/spaces/{space_id:str}/members", status_code=200, summary="Add or change a member")
async def add_member(
    space_id: FromPath[str],
    data: JSONBody[MemberBody],
    services: NamedDependency[Services],
    caller: NamedDependency[Caller],
) -> MembershipRecord:
    org_id = await _org_id(services, caller, data.org)
    return await services.spaces.add_member(
        org_id, space_id, data.principal, data.role, caller.principal, _API
    )


@post(
    "/api/admin/spaces/{space_id:str}/writes", status_code=200, summary="Enable or disable writes"
)
async def set_writes(
    space_id: FromPath[str],
    data: JSONBody[WritesBody],
    services: NamedDependency[Services],
    caller: NamedDependency[Caller],
) -> SpaceRecord:
    org_id = await _org_id(services, caller, data.org)
    return await services.spaces.set_writes(org_id, space_id, data.enabled, caller.principal, _API)


ADMIN_ROUTES = [
    create_org,
    create_principal,
    list_principals,
    create_key,
    list_keys,
    revoke_key,
    create_space,
    list_all_spaces,
    add_member,
    set_writes,
]
