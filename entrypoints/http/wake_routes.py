"""HTTP route of the wake pack: what matters now, without a query.

Thin: the body becomes a ``WakeRequest`` under the request's policy context.
"""

from typing import Annotated

import msgspec
from litestar import post
from litestar.di import NamedDependency
from litestar.params import JSONBody

from application.retrieval.wake_records import WakePack, WakeRequest
from application.services import Services
from domain.policy import MemoryPolicyContext
from domain.wake import DEFAULT_WAKE_BUDGET, MAX_WAKE_BUDGET

__all__ = ["WAKE_ROUTES", "WakeBody"]


class WakeBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    space: Annotated[
        str | None,
        msgspec.Meta(description="scope[/key]: only that space; every readable space otherwise"),
    ] = None
    token_budget: Annotated[
        int, msgspec.Meta(description=f"cl100k_base tokens, 1 to {MAX_WAKE_BUDGET}.")
    ] = DEFAULT_WAKE_BUDGET


@post("/api/context/wake", status_code=200, summary="Wake pack: what matters now")
async def wake(
    data: JSONBody[WakeBody],
    services: NamedDependency[Services],
    policy: NamedDependency[MemoryPolicyContext],
) -> WakePack:
    """Active decisions, open tasks, preferences and recent memory, each with its raw
    source ids and the reason it was chosen, within the token budget (at most 1,200)."""
    request = WakeRequest(org_id=policy.org_id, space=data.space, token_budget=data.token_budget)
    return await services.wake.wake(request, policy)


WAKE_ROUTES = [wake]
