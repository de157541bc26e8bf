"""Bearer-key authentication as Litestar dependencies.

Every route except health and the OpenAPI schema depends on ``caller`` or
``policy``, so it cannot run without a valid key; the key alone decides
the organisation.
"""

from litestar import Request
from litestar.datastructures import State

from application.services import Services
from application.trust.access import Caller
from domain.policy import MemoryPolicyContext, Surface

__all__ = ["AGENT_HEADER", "bearer_key", "provide_caller", "provide_policy", "provide_services"]

#: a client may say which agent it acts as; it must be the key's own agent
AGENT_HEADER = "x-tessera-agent"


def bearer_key(authorization: str | None) -> str | None:
    """The key of an ``Authorization: Bearer <key>`` header, or None."""
    if not authorization:
        return None
    scheme, _, key = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not key.strip():
        return None
    return key.strip()


async def provide_services(state: State) -> Services:
    services: Services = state.services
    return services


async def _session(request: Request[object, object, State]) -> tuple[Caller, MemoryPolicyContext]:
    cached = request.scope.get("state", {}).get("tessera_session")
    if cached is not None:
        return cached  # type: ignore[no-any-return]
    services: Services = request.app.state.services
    surface: Surface = request.app.state.surface
    session = await services.session(
        bearer_key(request.headers.get("authorization")),
        surface,
        request.headers.get(AGENT_HEADER) or None,
    )
    request.scope.setdefault("state", {})["tessera_session"] = session
    return session


async def provide_caller(request: Request[object, object, State]) -> Caller:
    caller, _ = await _session(request)
    return caller


async def provide_policy(request: Request[object, object, State]) -> MemoryPolicyContext:
    _, ctx = await _session(request)
    return ctx
