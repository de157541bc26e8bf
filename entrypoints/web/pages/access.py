"""Access (``/memory/access``): who the viewer is, their spaces, and what another could see.

Use cases, with the viewer's context or principal:
``MemoryInspector.visible_spaces`` (the viewer's spaces and roles);
``MemoryInspector.access_preview`` ("what can this agent see?": per space,
how many sources that principal could recall, how many are not active, and
why the rest are refused; organisation admins and space owners only); for
admins, ``SpaceAdmin.list_spaces`` with ``Roster.members``,
``ControlService.list_principals`` and ``list_keys``, ``Roster.delegations``,
and for everyone ``Revoker.owned`` (their keys, their agents' keys and the
delegations they granted), each revoked through ``pages/access_revoke``,
and the forms that make keys, agents and people (``pages/access_create``).
"""

from typing import Any

from litestar import Request, get
from litestar.datastructures import State
from litestar.response import Template

from application.trust.records import SpaceRecord
from domain.errors import NotFoundError
from domain.policy import SpaceRole
from domain.reasons import ReasonCode
from entrypoints.web.render import page
from entrypoints.web.viewer import Viewer, signed_in

__all__ = ["ROUTES"]

#: spaces an "every space" access preview runs over, at most
_PREVIEW_SPACES = 30


def _is_admin(viewer: Viewer) -> bool:
    return viewer.ctx.org_role.administers and not viewer.is_agent


async def _admin_view(viewer: Viewer) -> dict[str, Any]:
    principal, org_id = viewer.caller.principal, viewer.ctx.org_id
    services = viewer.services
    spaces = await services.spaces.list_spaces(org_id, principal)
    people = await services.control.list_principals(org_id, principal)
    names = {p.principal_id: p.name for p in people}
    members = {
        s.space_id: [
            (names.get(m.principal_id, m.principal_id), m.role)
            for m in await services.roster.members(org_id, s.space_id, principal)
        ]
        for s in spaces
    }
    return {
        "all_spaces": spaces,
        "members": members,
        "people": people,
        "names": names,
        "keys": await services.control.list_keys(org_id, principal),
        "delegations": await services.roster.delegations(org_id, principal),
    }


async def _previewable(viewer: Viewer, admin: dict[str, Any] | None) -> list[tuple[str, str]]:
    """(space id, label) of the spaces whose access the viewer may preview."""
    if admin is not None:
        spaces: list[SpaceRecord] = admin["all_spaces"]
        return [(s.space_id, f"{s.name} ({s.scope} · {s.scope_key or s.scope})") for s in spaces]
    mine = await viewer.services.inspector.visible_spaces(await viewer.context())
    return [
        (s.space_id, f"{s.name} ({s.scope} · {s.scope_key or s.scope})")
        for s in mine
        if s.space_id is not None and s.role is SpaceRole.OWNER
    ]


async def _preview(
    viewer: Viewer, who: str, space: str, spaces: list[tuple[str, str]]
) -> list[tuple[str, Any]]:
    chosen = [s for s in spaces if s[0] == space] if space else spaces[:_PREVIEW_SPACES]
    if space and not chosen:
        raise NotFoundError(ReasonCode.NOT_FOUND, "no such space among those you may preview")
    found = []
    for space_id, label in chosen:
        ctx = await viewer.context()
        found.append((label, await viewer.services.inspector.access_preview(ctx, space_id, who)))
    return found


def _key_choices(viewer: Viewer, owned: Any, admin: dict[str, Any] | None) -> list[tuple[str, str]]:
    """(principal id, label) of whom a key may be made for: yourself, your agents (those
    with a key or a delegation of yours), and for admins everyone; the policy decides."""
    me = viewer.caller.principal
    choices = {me.principal_id: f"{me.name} (you)"}
    names = owned.names
    for agent_id in owned.agents:
        choices.setdefault(agent_id, f"{names.get(agent_id, 'an agent')} (your agent)")
    for p in admin["people"] if admin else []:
        kind = "agent" if p.kind == "agent" else "person"
        choices.setdefault(p.principal_id, f"{p.name} ({kind})")
    return list(choices.items())


@get("/access", name="web_access")
async def access(request: Request[Any, Any, State]) -> Template:
    viewer = await signed_in(request)
    params = request.query_params
    admin = await _admin_view(viewer) if _is_admin(viewer) else None
    previewable = await _previewable(viewer, admin)
    who = (params.get("who") or "").strip()
    space = params.get("space") or ""
    preview = await _preview(viewer, who, space, previewable) if who and previewable else None
    ctx, me = viewer.ctx, viewer.caller.principal.principal_id
    owned = await viewer.services.revoker.owned(viewer.caller.principal)
    return page(
        "access.html",
        viewer,
        title="Access",
        principal=viewer.caller.principal,
        key_id=viewer.caller.key_id,
        spaces=await viewer.services.inspector.visible_spaces(await viewer.context()),
        delegations=[d for d in ctx.delegations if d.agent_id == me],
        now=ctx.now,
        admin=admin,
        previewable=previewable,
        who=who,
        space=space,
        preview=preview,
        owned=owned,
        key_choices=_key_choices(viewer, owned, admin),
        done=params.get("done"),
    )


ROUTES = [access]
