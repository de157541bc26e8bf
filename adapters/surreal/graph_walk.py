"""One hop of graph expansion in one SurrealDB round trip (``GraphStore.neighbourhood``).

Why a query of its own: expansion used to read the edges, then their ends, then
each named end's namesakes through full-text (one BM25 search per name), then
the mentions, each waiting for the one before; on the embedded engine that chain
was most of what the derived signals cost a search (benchmarks/RESULTS.md,
"One graph read per hop"). Here the namesakes are an equality lookup on the
indexed ``key`` (``merging.name_key``), and everything comes back together.
Nothing is gated here: the caller checks each record's space and sources.
"""

from collections.abc import Sequence
from typing import Any

from adapters.surreal import codec
from adapters.surreal.graph_reads import (
    SurrealGraphReads,
    chunk_lists,
    decode_edge,
    decode_entity,
)
from adapters.surreal.store_base import AS_RECORDS
from application.ports.reflection_records import Neighbourhood
from domain.scopes import ScopeRef

__all__ = ["HOP", "SurrealGraphWalk"]

#: one hop from the entity records in ``$ids``: its edges, their ends, the entities named
#: like an end (``<SPACES>``: the visible-space condition) and all of them as ``$all``;
#: ``graph_matched`` runs the same hop inside its one read
HOP = """
LET $edges = SELECT id, body, in, out FROM relates_to WHERE in IN $ids OR out IN $ids
    ORDER BY id LIMIT $limit;
LET $ends = array::distinct(array::flatten($edges.map(|$e| [$e.in, $e.out])));
LET $names = array::distinct(SELECT VALUE key FROM $ends WHERE key != NONE);
LET $alike = array::flatten($names.map(|$k| (SELECT VALUE id FROM entity
    WHERE key = $k<SPACES> ORDER BY id LIMIT $limit)));
LET $all = array::distinct(array::concat($ends, $alike));
"""

_ANSWER = """
RETURN {
    edges: $edges.body,
    entities: (SELECT VALUE body FROM $all),
    namesakes: $alike.map(|$r| meta::id($r)),
    mentions: (SELECT meta::id(id) AS e, (->mentions->chunk).map(|$c| meta::id($c)) AS c
        FROM $all)
};
"""

_HOOD = HOP + _ANSWER


class SurrealGraphWalk(SurrealGraphReads):
    async def neighbourhood(
        self,
        org_id: str,
        entity_ids: Sequence[str],
        limit: int,
        visible: frozenset[ScopeRef] | None,
    ) -> Neighbourhood:
        namespace = codec.namespace_for(org_id)
        if not entity_ids or limit < 1 or not await self._tables.exists(namespace):
            return Neighbourhood(edges=[], entities={}, namesakes=[], mentions={})
        variables: dict[str, Any] = {
            "keys": list(dict.fromkeys(entity_ids)),
            "table": "entity",
            "limit": int(limit),
        }
        sql = _HOOD.replace("<SPACES>", "")
        if visible is not None:
            sql = _HOOD.replace("<SPACES>", " AND space IN $spaces")
            variables["spaces"] = sorted(codec.ref_code(ref) for ref in visible)
        results = await self._tables.read_last(
            namespace, AS_RECORDS + sql, variables, "walking one hop"
        )
        found = results or {}
        entities = [decode_entity(body) for body in found.get("entities") or []]
        return Neighbourhood(
            edges=[decode_edge(body) for body in found.get("edges") or []],
            entities={e.entity_id: e for e in entities},
            namesakes=[str(i) for i in found.get("namesakes") or []],
            mentions=chunk_lists(found.get("mentions") or []),
        )
