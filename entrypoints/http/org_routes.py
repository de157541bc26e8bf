"""Dropping an organisation over HTTP: preview (counts and a token), then drop with the token.

Thin: ``OrgDropper`` decides who may, checks the token and gives the space back.
"""

from typing import Annotated

import msgspec
from litestar import post
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody

from application.operations.org_drop import OrgDropPreview, OrgDropResult
from application.operations.store_compaction import CompactionResult
from application.services import Services
from application.trust.access import Caller
from domain.policy import Surface

__all__ = ["ORG_ROUTES", "DropBody"]


class DropBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    token: Annotated[
        str,
        msgspec.Meta(
            max_length=200, description="The token of a preview of this organisation's drop."
        ),
    ]


@post(
    "/api/admin/orgs/{org:str}/drop-preview",
    status_code=200,
    summary="Preview dropping an organisation: what goes, and the token to drop it",
)
async def preview_org_drop(
    org: FromPath[str], services: NamedDependency[Services], caller: NamedDependency[Caller]
) -> OrgDropPreview:
    return await services.orgs.preview(org, caller.principal, Surface.API)


@post(
    "/api/admin/orgs/{org:str}/drop",
    status_code=200,
    summary="Drop an organisation (with its preview token) and give its space back",
)
async def drop_org(
    org: FromPath[str],
    data: JSONBody[DropBody],
    services: NamedDependency[Services],
    caller: NamedDependency[Caller],
) -> OrgDropResult:
    return await services.orgs.drop(org, data.token, caller.principal, Surface.API)


@post(
    "/api/admin/compact",
    status_code=200,
    summary="Rewrite the store so deleted text and dropped organisations leave its files",
)
async def compact_store(
    services: NamedDependency[Services], caller: NamedDependency[Caller]
) -> CompactionResult:
    """The install's owner only. Every query waits while it runs (about 4 ms per live row)."""
    return await services.store_compaction.compact(caller.principal, Surface.API)


ORG_ROUTES = [preview_org_drop, drop_org, compact_store]
