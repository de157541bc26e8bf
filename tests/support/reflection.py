"""Reflection tests' building blocks: a seeded conversation, and acting through the use cases."""

from application.memory.commands import RememberRequest
from application.reflection.commands import (
    ReflectRequest,
    ReflectResult,
    ReviewRequest,
    ReviewResult,
)
from application.reflection.reflect import Reflector
from application.reflection.review import Reviewer
from application.trust.records import PrincipalRecord
from domain.models import Turn
from domain.reflection.candidates import ReviewAction
from domain.scopes import MemoryScope
from tests.support.world import World

__all__ = ["SESSION", "reflect", "review", "seed_session"]

SESSION = [
    Turn(role="user", speaker="Maya", content="We decided to go with SurrealDB for storage."),
    Turn(role="assistant", content="Noted. Anything else for the launch?"),
    Turn(role="user", speaker="Maya", content="I will write the migration guide."),
]


def _reflection(world: World) -> tuple[Reflector, Reviewer]:
    assert world.services.reflection is not None and world.services.review is not None
    return world.services.reflection, world.services.review


async def seed_session(
    world: World,
    who: PrincipalRecord,
    scope: MemoryScope = MemoryScope.PRIVATE,
    key: str | None = None,
) -> str:
    request = RememberRequest(org_id=who.org_id, turns=SESSION, scope=scope, scope_key=key)
    return (await world.services.memory.remember(request, await world.ctx(who))).source_id


async def reflect(world: World, who: PrincipalRecord, *source_ids: str) -> ReflectResult:
    reflector, _ = _reflection(world)
    request = ReflectRequest(org_id=who.org_id, source_ids=list(source_ids))
    return await reflector.reflect(request, await world.ctx(who))


async def review(
    world: World,
    who: PrincipalRecord,
    candidate_id: str,
    action: ReviewAction = ReviewAction.ACCEPT,
    promote_to_scope: MemoryScope | None = None,
    scope_key: str | None = None,
) -> ReviewResult:
    _, reviewer = _reflection(world)
    request = ReviewRequest(
        org_id=who.org_id,
        candidate_id=candidate_id,
        action=action,
        promote_to_scope=promote_to_scope,
        scope_key=scope_key,
    )
    return await reviewer.review(request, await world.ctx(who))
