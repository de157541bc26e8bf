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
from entrypoints.headers import AGENT_HEADER, bearer_key

__all__ = ["authenticate", "provide_caller", "provide_policy", "provide_services"]


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


async def authenticate(request: Request[object, object, State]) -> None:
    """Check the key now (401s first); the dependencies reuse the cached session."""
    await _session(request)


async def provide_caller(request: Request[object, object, State]) -> Caller:
    caller, _ = await _session(request)
    return caller


async def provide_policy(request: Request[object, object, State]) -> MemoryPolicyContext:
    _, ctx = await _session(request)
    return ctx
