"""Revoking a key or a delegation from the access page: preview, then apply with its token.

Use cases: ``Revoker.preview_key`` / ``preview_delegation`` (whose it is,
what revoking does, whether the last-owner-key rule refuses it, and the
token) and ``Revoker.revoke_key`` / ``revoke_delegation`` with that token.
``Revoker`` decides who may (the owner, the user an owning agent acts for,
an organisation admin); the page only asks. A preview gone stale (revoked
meanwhile, or the last-owner-key answer changed) answers 409 with its reason
and the fresh preview in its place.
"""

from typing import Any

from litestar import Request, Response, get, post
from litestar.datastructures import State
from litestar.params import FromPath
from litestar.response import Redirect, Template

from application.trust.revocation import RevokePreview
from domain.errors import ConflictError
from domain.policy import Surface
from domain.reasons import ReasonCode
from entrypoints.web.forms import posted
from entrypoints.web.render import page
from entrypoints.web.viewer import Viewer, signed_in

__all__ = ["ROUTES"]


def _preview_page(
    viewer: Viewer, preview: RevokePreview, stale: ReasonCode | None = None
) -> Template:
    what = "a key" if preview.target == "key" else "a delegation"
    return page(
        "access_revoke.html",
        viewer,
        title=f"Revoke {what}: preview",
        preview=preview,
        stale=stale,
        status_code=409 if stale else 200,
    )


async def _key_preview(viewer: Viewer, key_id: str) -> RevokePreview:
    return await viewer.services.revoker.preview_key(
        key_id, viewer.caller.principal, Surface.WEB, signed_in_with=viewer.caller.key_id
    )


@get("/access/keys/{key_id:str}/revoke", name="web_revoke_preview")
async def key_preview(request: Request[Any, Any, State], key_id: FromPath[str]) -> Template:
    """Step one: whose key it is and what revoking does; the form with the token."""
    viewer = await signed_in(request)
    return _preview_page(viewer, await _key_preview(viewer, key_id))


@post("/access/keys/{key_id:str}/revoke", status_code=303)
async def revoke_key(request: Request[Any, Any, State], key_id: FromPath[str]) -> Response[Any]:
    viewer = await signed_in(request)
    form = await posted(request, viewer)
    try:
        await viewer.services.revoker.revoke_key(
            key_id,
            form.optional("token"),
            viewer.caller.principal,
            Surface.WEB,
            signed_in_with=viewer.caller.key_id,
        )
    except ConflictError as exc:
        if exc.reason is not ReasonCode.PREVIEW_STALE:
            raise
        return _preview_page(viewer, await _key_preview(viewer, key_id), exc.reason)
    if key_id == viewer.caller.key_id:
        return Redirect("/memory/sign-in", status_code=303)  # that key was this session's
    return Redirect("/memory/access?done=revoked", status_code=303)


@get("/access/delegations/{delegation_id:str}/revoke", name="web_delegation_revoke_preview")
async def delegation_preview(
    request: Request[Any, Any, State], delegation_id: FromPath[str]
) -> Template:
    viewer = await signed_in(request)
    preview = await viewer.services.revoker.preview_delegation(
        delegation_id, viewer.caller.principal, Surface.WEB
    )
    return _preview_page(viewer, preview)


@post("/access/delegations/{delegation_id:str}/revoke", status_code=303)
async def revoke_delegation(
    request: Request[Any, Any, State], delegation_id: FromPath[str]
) -> Response[Any]:
    viewer = await signed_in(request)
    form = await posted(request, viewer)
    revoker, principal = viewer.services.revoker, viewer.caller.principal
    try:
        token = form.optional("token")
        await revoker.revoke_delegation(delegation_id, token, principal, Surface.WEB)
    except ConflictError as exc:
        if exc.reason is not ReasonCode.PREVIEW_STALE:
            raise
        fresh = await revoker.preview_delegation(delegation_id, principal, Surface.WEB)
        return _preview_page(viewer, fresh, exc.reason)
    return Redirect("/memory/access?done=delegation-revoked", status_code=303)


ROUTES = [key_preview, revoke_key, delegation_preview, revoke_delegation]
