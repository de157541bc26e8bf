"""One read per hop: the first hop read beside the matches, used only for its own seeds,
and gated like any other."""

from collections.abc import Sequence

from application.ports.reflection import GraphStore
from application.ports.reflection_records import DerivedEntity, Neighbourhood
from application.reflection.derived import DerivedRecall
from application.reflection.expansion import FirstHop, GraphExpansion
from domain.policy import MemoryPolicyContext, readable_spaces
from domain.scopes import ScopeRef
from tests.unit.application.test_graph_expansion import _search, _world


async def _seeds(graph: GraphStore, org_id: str, query: str) -> list[DerivedEntity]:
    hits = await graph.entity_lexical(org_id, query, 3, None)
    found = await graph.get_entities(org_id, [h.item_id for h in hits])
    return [found[h.item_id] for h in hits]


async def _orion() -> tuple[GraphExpansion, str, MemoryPolicyContext, list[DerivedEntity]]:
    """The service's own expansion, Ana's org and policy, and the seeds "Orion" matches."""
    world, ana, _, _, _ = await _world()
    derived = world.services.recall._derived
    assert isinstance(derived, DerivedRecall)
    ctx = await world.ctx(ana)
    return derived._expansion, ana.org_id, ctx, await _seeds(world.graph, ana.org_id, "Orion")


async def test_a_search_walks_one_hop_in_one_graph_read() -> None:
    world, ana, _, _, runbook = await _world()
    reads: list[tuple[str, ...]] = []
    walk = world.graph.neighbourhood

    async def counted(
        org_id: str, ids: Sequence[str], limit: int, visible: frozenset[ScopeRef] | None
    ) -> Neighbourhood:
        reads.append(tuple(ids))
        return await walk(org_id, ids, limit, visible)

    world.graph.neighbourhood = counted  # type: ignore[method-assign]
    found = await _search(world, ana, "Orion")
    assert runbook in {h.source_id for h in found.results}
    # read beside the matches, and used: no second read from the same seeds
    assert len(reads) == 1


async def test_a_prefetched_hop_from_other_records_is_not_used() -> None:
    expansion, org_id, ctx, seeds = await _orion()
    assert seeds
    plain = await expansion.chunks(org_id, ctx, seeds)
    assert plain
    empty = Neighbourhood(edges=[], entities={}, namesakes=[], mentions={})
    other = FirstHop(start=("nope",), hood=empty)
    assert await expansion.chunks(org_id, ctx, seeds, other, set()) == plain


async def test_a_prefetched_hop_is_still_gated() -> None:
    expansion, org_id, ctx, seeds = await _orion()
    visible = readable_spaces(ctx)
    first = await expansion.first_hop(org_id, [s.entity_id for s in seeds], visible)
    assert first is not None and first.hood.edges
    plain = await expansion.chunks(org_id, ctx, seeds)
    everything = set(first.cited(visible))
    assert await expansion.chunks(org_id, ctx, seeds, first, everything) == plain
    # no source readable now: the prefetched records are refused, nothing is reached
    assert await expansion.chunks(org_id, ctx, seeds, first, set()) == []


async def test_no_expansion_reads_no_hop() -> None:
    world, ana, _, _, _ = await _world()
    still = GraphExpansion(store=world.store, graph=world.graph, hops=0)
    ctx = await world.ctx(ana)
    assert await still.first_hop(ana.org_id, ["x"], readable_spaces(ctx)) is None
