"""Share routes: preview sharing a source or a promoted entity into a space, then apply it.

Thin: the body names the record and the target space; who may, who would
see it and the token all live in ``application.sharing``.
"""

from typing import Annotated

import msgspec
from litestar import post
from litestar.di import NamedDependency
from litestar.params import JSONBody

from application.services import Services
from application.sharing.commands import ShareApplied, ShareKind, SharePreview, ShareRequest
from domain.policy import MemoryPolicyContext
from domain.scopes import MemoryScope

__all__ = ["SHARE_ROUTES", "ShareApplyBody", "ShareBody"]


class ShareBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    kind: Annotated[
        ShareKind, msgspec.Meta(description="source (a raw source) or entity (a promoted record)")
    ]
    id: Annotated[str, msgspec.Meta(description="The source id or entity id to share")]
    scope: MemoryScope
    scope_key: str | None = None

    def request(self, org_id: str) -> ShareRequest:
        return ShareRequest(
            org_id=org_id,
            kind=self.kind,
            subject_id=self.id,
            scope=self.scope,
            scope_key=self.scope_key,
        )


class ShareApplyBody(ShareBody, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The previewed body again, with the ``preview_token`` its preview answered."""

    preview_token: str | None = None


@post("/api/memory/share/preview", status_code=200, summary="Preview sharing into a space")
async def preview_share(
    data: JSONBody[ShareBody],
    services: NamedDependency[Services],
    policy: NamedDependency[MemoryPolicyContext],
) -> SharePreview:
    """Who would newly see the record (principals, counted by kind), what the target space's
    readers would see of it, the derived records that follow or stay, what stays withheld,
    and a ``preview_token`` when the policy allows the share. Nothing is changed."""
    return await services.sharing.preview(data.request(policy.org_id), policy)


@post("/api/memory/share", status_code=200, summary="Apply a previewed share")
async def apply_share(
    data: JSONBody[ShareApplyBody],
    services: NamedDependency[Services],
    policy: NamedDependency[MemoryPolicyContext],
) -> ShareApplied:
    """Write the copy into the space; 409 ``source_changed`` if the record changed since the
    preview, 422 ``preview_required`` / ``preview_invalid`` without a matching token."""
    return await services.sharing.apply(data.request(policy.org_id), policy, data.preview_token)


SHARE_ROUTES = [preview_share, apply_share]
