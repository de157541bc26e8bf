"""A caller's own keys and delegations over HTTP: list, preview a revocation, revoke.

Thin: ``Revoker`` decides who may (the owner, the user an owning agent acts
for, an organisation admin), seals the preview and checks its token.
"""

from typing import Annotated

import msgspec
from litestar import get, post
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody

from application.services import Services
from application.trust.access import Caller
from application.trust.records import DelegationRecord
from application.trust.revocation import OwnedGrants, RevokePreview
from domain.policy import Surface
from entrypoints.http.schemas import KeyView

__all__ = ["ACCESS_ROUTES", "RevokeBody"]

_API = Surface.API


class RevokeBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    token: Annotated[
        str,
        msgspec.Meta(max_length=200, description="The token of a preview of this revocation."),
    ]


@get("/api/access/owned", summary="The caller's keys, their agents' keys, and their delegations")
async def owned(
    services: NamedDependency[Services], caller: NamedDependency[Caller]
) -> OwnedGrants:
    return await services.revoker.owned(caller.principal)


@post(
    "/api/access/keys/{key_id:str}/revoke-preview",
    status_code=200,
    summary="Preview revoking a key: whose it is, what it does, and the token to revoke it",
)
async def preview_key_revoke(
    key_id: FromPath[str], services: NamedDependency[Services], caller: NamedDependency[Caller]
) -> RevokePreview:
    return await services.revoker.preview_key(
        key_id, caller.principal, _API, signed_in_with=caller.key_id
    )


@post(
    "/api/access/keys/{key_id:str}/revoke",
    status_code=200,
    summary="Revoke a key the caller owns (with its preview token)",
)
async def revoke_key(
    key_id: FromPath[str],
    data: JSONBody[RevokeBody],
    services: NamedDependency[Services],
    caller: NamedDependency[Caller],
) -> KeyView:
    k = await services.revoker.revoke_key(
        key_id, data.token, caller.principal, _API, signed_in_with=caller.key_id
    )
    return KeyView(
        key_id=k.key_id,
        org_id=k.org_id,
        principal_id=k.principal_id,
        created_at=k.created_at,
        revoked_at=k.revoked_at,
    )


@post(
    "/api/access/delegations/{delegation_id:str}/revoke-preview",
    status_code=200,
    summary="Preview ending a delegation: which agent loses what, and the token to end it",
)
async def preview_delegation_revoke(
    delegation_id: FromPath[str],
    services: NamedDependency[Services],
    caller: NamedDependency[Caller],
) -> RevokePreview:
    return await services.revoker.preview_delegation(delegation_id, caller.principal, _API)


@post(
    "/api/access/delegations/{delegation_id:str}/revoke",
    status_code=200,
    summary="End a delegation the caller granted (with its preview token)",
)
async def revoke_delegation(
    delegation_id: FromPath[str],
    data: JSONBody[RevokeBody],
    services: NamedDependency[Services],
    caller: NamedDependency[Caller],
) -> DelegationRecord:
    return await services.revoker.revoke_delegation(
        delegation_id, data.token, caller.principal, _API
    )


ACCESS_ROUTES = [
    owned,
    preview_key_revoke,
    revoke_key,
    preview_delegation_revoke,
    revoke_delegation,
]
