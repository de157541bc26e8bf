"""Sign in with an API key; sign out. The key never reaches a page again.

The key is checked by the same ``Services.session`` as a bearer key; on
success the browser gets only a random session id. Attempts are limited per
client address (failed ones: see ``SignInLimiter``), so the form cannot be
used to guess keys quickly.
"""

from typing import Any

from litestar import Request, Response, get, post
from litestar.datastructures import Cookie, State
from litestar.response import Redirect, Template

from application.services import Services
from domain.errors import AuthenticationError
from domain.policy import Surface
from entrypoints.web.forms import client_of, posted
from entrypoints.web.render import page
from entrypoints.web.viewer import COOKIE, signed_in, web_state

__all__ = ["ROUTES"]


def _cookie(request: Request[Any, Any, State], value: str, *, end: bool = False) -> Cookie:
    return Cookie(
        key=COOKIE,
        value=value,
        path="/memory",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
        max_age=0 if end else None,
    )


@get("/sign-in", name="web_sign_in")
async def sign_in_form(request: Request[Any, Any, State]) -> Template:
    return page("sign_in.html", None, title="Sign in", problem=None)


@post("/sign-in", status_code=303)
async def sign_in(request: Request[Any, Any, State]) -> Response[Any]:
    state = web_state(request)
    form = await posted(request, None)
    if not state.limiter.allow(client_of(request)):
        problem = "Too many sign-in attempts from here. Wait a minute and try again."
        return page("sign_in.html", None, title="Sign in", problem=problem, status_code=429)
    services: Services = request.app.state.services
    key = form.get("api_key").strip()
    try:
        await services.session(key, Surface.WEB)
    except AuthenticationError:
        state.limiter.failed(client_of(request))
        problem = "That key was not accepted (unknown, revoked or mistyped)."
        return page("sign_in.html", None, title="Sign in", problem=problem, status_code=401)
    state.sessions.end(request.cookies.get(COOKIE))  # a new session id at every sign-in
    session = state.sessions.create(key)
    return Redirect("/memory", status_code=303, cookies=[_cookie(request, session.session_id)])


@post("/sign-out", status_code=303)
async def sign_out(request: Request[Any, Any, State]) -> Response[Any]:
    viewer = await signed_in(request)
    await posted(request, viewer)
    web_state(request).sessions.end(viewer.session.session_id)
    return Redirect("/memory/sign-in", status_code=303, cookies=[_cookie(request, "", end=True)])


ROUTES = [sign_in_form, sign_in, sign_out]
