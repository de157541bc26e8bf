"""The relevance gate with the offline MiniLM: nonsense gets nothing, real questions their hits.

Over a few dozen everyday notes, a nonsense question lands near the
relatedness floor (0.20) by chance: "xylophone quantum banana" sits at about
0.34 from "So what instrument did your daughter pick at school?". The gate
used to count that as evidence; now meaning alone must reach 0.40, and one
shared word counts only beside nearness.
"""

import pytest

from adapters.embedders.onnx_minilm import OnnxEmbedder
from application.memory.commands import ContextRequest, RememberRequest, SearchRequest
from application.memory.results import ContextPack, SearchResults
from application.ports.writes import WaitFor
from domain.policy import MemoryPolicyContext, OrgRole, Surface
from domain.relevance_gate import NOTHING_RELEVANT, WEAK_KEEP, WEAK_MATCH
from tests.support.world import World

pytestmark = pytest.mark.slow

NOTES = (
    "So what instrument did your daughter pick at school?",
    "The drums, and the neighbours are being very patient about it.",
    "I've started piano lessons, my fingers don't cooperate.",
    "My neighbour Joe fixes bikes in the garage for free.",
    "The spare house key is with Mrs. Okafor at number 12.",
    "Dentist on March 3rd at 9am, bring the insurance card.",
    "We moved the team offsite to the lake house in June.",
    "The boiler was serviced in October; next service due in a year.",
    *(f"Note {i}: the garden beds need watering on day {i}." for i in range(12)),
)


@pytest.fixture(scope="module")
def embedder() -> OnnxEmbedder:
    return OnnxEmbedder()


class Memory:
    def __init__(self, world: World, org_id: str, ctx: MemoryPolicyContext) -> None:
        self.world, self.org_id, self.ctx = world, org_id, ctx

    async def search(self, query: str, limit: int = 20) -> SearchResults:
        return await self.world.services.memory.search(
            SearchRequest(org_id=self.org_id, query=query, limit=limit), self.ctx
        )

    async def pack(self, query: str) -> ContextPack:
        return await self.world.services.memory.context_pack(
            ContextRequest(org_id=self.org_id, query=query, token_budget=2000), self.ctx
        )


@pytest.fixture
async def memory(embedder: OnnxEmbedder) -> Memory:
    world = World(embedder=embedder)
    org = await world.services.control.create_organization("acme", None, Surface.CLI, "acme")
    ctx = await world.ctx(await world.user(org.org_id, "owner", OrgRole.OWNER))
    for text in NOTES:
        await world.services.memory.remember(
            RememberRequest(org_id=org.org_id, content=text, wait=WaitFor.INDEXED), ctx
        )
    await world.services.memory.lane.drain()  # every note searchable by meaning too
    return Memory(world, org.org_id, ctx)


@pytest.mark.parametrize("query", ["xylophone quantum banana", "glorp fnord blivet"])
async def test_nonsense_gets_no_results_and_a_closed_pack(memory: Memory, query: str) -> None:
    found = await memory.search(query)
    assert found.results == [] and found.reason == NOTHING_RELEVANT
    assert found.below_floor == 20
    pack = await memory.pack(query)
    assert len(pack.items) <= WEAK_KEEP and pack.reason == NOTHING_RELEVANT
    assert all(WEAK_MATCH in item.reason for item in pack.items)
    assert pack.below_floor > 0


async def test_one_common_word_far_in_meaning_does_not_open_the_gate(memory: Memory) -> None:
    # "day" is in every garden note, far in meaning; the nearest note (0.23) shares no word
    found = await memory.search("quarterly tax invoice payment day")
    assert found.results == [] and found.reason == NOTHING_RELEVANT


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("what instrument did the daughter choose", "instrument did your daughter"),
        ("who has the spare key", "Okafor"),
        ("when is the dentist", "Dentist on March"),
        ("does anyone repair bicycles nearby", "fixes bikes"),
    ],
)
async def test_real_questions_keep_their_hits(memory: Memory, query: str, expected: str) -> None:
    found = await memory.search(query, limit=5)
    assert found.reason is None and found.below_floor == 0
    assert expected in found.results[0].text
