"""Who is looking: the signed-in person of one page request.

The session cookie names a server-side session; its key is authenticated
again on every request through the same ``Services.session`` as a bearer
key, so a revoked key or an expired delegation takes effect at once, and an
agent's key sees exactly what that agent may see.
"""

from dataclasses import dataclass, field
from typing import Any

from litestar import Request
from litestar.datastructures import State

from application.services import Services
from application.trust.access import Caller
from domain.errors import AuthenticationError
from domain.policy import MemoryPolicyContext, Surface
from entrypoints.web.sessions import SessionStore, SignInLimiter, WebSession

__all__ = [
    "COOKIE",
    "SignInRequiredError",
    "Viewer",
    "WebState",
    "known_viewer",
    "signed_in",
    "web_state",
]

#: the session cookie; ``__Host-`` would need TLS, which a loopback service lacks
COOKIE = "tessera_session"
#: where a request keeps its viewer once authenticated, for the error page's navigation
_VIEWER = "web_viewer"


class SignInRequiredError(Exception):
    """No live session: the page answers with a redirect to the sign-in form."""


@dataclass
class WebState:
    """The workspace's process state: sessions and the sign-in limiter."""

    sessions: SessionStore = field(default_factory=SessionStore)
    limiter: SignInLimiter = field(default_factory=SignInLimiter)


def web_state(request: Request[Any, Any, State]) -> WebState:
    state: State = request.app.state
    found = state.get("web")
    if not isinstance(found, WebState):
        found = WebState()
        state["web"] = found
    return found


@dataclass
class Viewer:
    services: Services
    session: WebSession
    caller: Caller
    #: the context of this request's first use case
    ctx: MemoryPolicyContext

    async def context(self) -> MemoryPolicyContext:
        """A fresh context (its own audit id) for each further use case of the same page."""
        return await self.services.access.context_for(
            self.caller.principal, Surface.WEB, self.services.audit.new_id()
        )

    @property
    def name(self) -> str:
        return self.caller.principal.name

    @property
    def is_agent(self) -> bool:
        return self.ctx.is_agent


async def signed_in(request: Request[Any, Any, State]) -> Viewer:
    """The viewer of this request, or ``SignInRequiredError``."""
    state = web_state(request)
    session = state.sessions.get(request.cookies.get(COOKIE))
    if session is None:
        raise SignInRequiredError
    services: Services = request.app.state.services
    try:
        caller, ctx = await services.session(session.api_key, Surface.WEB)
    except AuthenticationError:
        state.sessions.end(session.session_id)  # the key was revoked: the session ends too
        raise SignInRequiredError from None
    viewer = Viewer(services=services, session=session, caller=caller, ctx=ctx)
    request.state[_VIEWER] = viewer
    return viewer


def known_viewer(request: Request[Any, Any, Any]) -> Viewer | None:
    """The viewer this request already authenticated (``signed_in``), if any."""
    found = request.state.get(_VIEWER)
    return found if isinstance(found, Viewer) else None
