"""Making keys, agents and people from the access page, as the admin API makes them.

Use cases: ``ControlService.create_key`` and ``create_principal`` with the
signed-in principal and ``Surface.WEB``, the same calls and the same rules as
``POST /api/admin/keys`` and ``/api/admin/principals``: a key only for
yourself, your own agents or a new person's first key; an agent by its
person (acting for the signed-in person here) or an admin; a person by an
admin. Administering is not reading: making a key or an agent gives the
maker no sight of anyone's memory, and each key reads only what its own
principal may. A new key's secret is shown once, on the answer to the form
(never in an address, a redirect or a log), as the API shows it once.
"""

from typing import Any

from litestar import Request, Response, post
from litestar.datastructures import State
from litestar.response import Redirect, Template

from application.trust.keys import IssuedKey
from application.trust.records import PrincipalRecord
from domain.errors import InvalidInputError
from domain.policy import Surface
from domain.reasons import ReasonCode
from entrypoints.web.forms import Form, posted
from entrypoints.web.render import page
from entrypoints.web.viewer import Viewer, signed_in

__all__ = ["ROUTES"]

#: how long a delegation made here may last, in days (as the API allows)
_MAX_DAYS = 3650


def _days(form: Form) -> int:
    raw = form.get("delegation_days").strip() or "0"
    if not raw.isdigit() or int(raw) > _MAX_DAYS:
        raise InvalidInputError(
            ReasonCode.INVALID_REQUEST,
            f"a delegation lasts a whole number of days, 0 (none) to {_MAX_DAYS}",
        )
    return int(raw)


def _name(form: Form, what: str) -> str:
    name = form.get("name").strip()
    if not name:
        raise InvalidInputError(ReasonCode.INVALID_REQUEST, f"give the new {what} a name")
    return name


def _made(viewer: Viewer, issued: IssuedKey, owner: str, made: str | None = None) -> Template:
    """The new key, shown this once; the page is never cached (``no-store``)."""
    return page(
        "access_key_made.html",
        viewer,
        title="A new key",
        issued=issued,
        owner=owner,
        made=made,
        status_code=201,
    )


async def _key_for(viewer: Viewer, principal: PrincipalRecord) -> IssuedKey:
    control = viewer.services.control
    org_id = viewer.ctx.org_id
    return await control.create_key(
        org_id, principal.principal_id, viewer.caller.principal, Surface.WEB
    )


@post("/access/keys", status_code=201)
async def create_key(request: Request[Any, Any, State]) -> Template:
    viewer = await signed_in(request)
    form = await posted(request, viewer)
    chosen = form.optional("principal")
    if chosen is None:
        raise InvalidInputError(ReasonCode.INVALID_REQUEST, "choose whose key to make")
    principal = await viewer.services.control.principal(viewer.ctx.org_id, chosen)
    return _made(viewer, await _key_for(viewer, principal), principal.name)


@post("/access/agents", status_code=201)
async def create_agent(request: Request[Any, Any, State]) -> Response[Any]:
    """An agent acting for the signed-in person, with the delegation they give it."""
    viewer = await signed_in(request)
    form = await posted(request, viewer)
    name, days = _name(form, "agent"), _days(form)
    me = viewer.caller.principal
    agent = await viewer.services.control.create_principal(
        viewer.ctx.org_id, name, me, Surface.WEB, acting_for=me.principal_id, delegation_days=days
    )
    if not form.optional("with_key"):
        return Redirect("/memory/access?done=agent-made", status_code=303)
    return _made(viewer, await _key_for(viewer, agent), agent.name, made="agent")


@post("/access/people", status_code=201)
async def create_person(request: Request[Any, Any, State]) -> Template:
    """A person in the organisation (admins), with their first key to hand them."""
    viewer = await signed_in(request)
    form = await posted(request, viewer)
    person = await viewer.services.control.create_principal(
        viewer.ctx.org_id, _name(form, "person"), viewer.caller.principal, Surface.WEB
    )
    return _made(viewer, await _key_for(viewer, person), person.name, made="person")


ROUTES = [create_key, create_agent, create_person]
