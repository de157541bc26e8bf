import pytest

from application.trust.records import PrincipalRecord
from domain.policy import MemoryPolicyContext, OrgRole, Surface
from tests.support.world import World


class Parts:
    """The memory use cases in organisation ``acme``, acting as its owner."""

    def __init__(self, world: World, owner: PrincipalRecord, ctx: MemoryPolicyContext) -> None:
        self.world = world
        self.store = world.store
        self.index = world.index
        self.embedder = world.embedder
        self.clock = world.clock
        self.service = world.services.memory
        self.owner = owner
        self.ctx = ctx


@pytest.fixture
async def parts() -> Parts:
    world = World()
    org = await world.services.control.create_organization("acme", None, Surface.CLI, "acme")
    org_id = org.org_id
    owner = await world.user(org_id, "owner", OrgRole.OWNER)
    return Parts(world, owner, await world.ctx(owner))
