"""What a derived search reads of its matches, in one SurrealDB round trip (``matched``).

Why a query of its own: a search with every derived signal read the matched
entities, their mentions, their supersessions and the first hop of expansion
side by side, and the matched relationship facts, then their ends' mentions,
after them: six round trips, each parsed, planned and decoded on its own
(the client's CBOR decoder is pure Python), and an entity reached twice (a
seed is an end of its own edges) was read and decoded twice. Here they are
one query: each entity's body and mentions come back once, whichever part
asked for it (benchmarks/RESULTS.md, issue 13, 2026-11-27). Nothing is gated
here: the caller checks every record's space and sources, as before.
"""

from collections.abc import Sequence
from typing import Any

from adapters.surreal import codec
from adapters.surreal.graph_reads import chunk_lists, decode_edge, decode_entity, decode_link
from adapters.surreal.graph_walk import HOP, SurrealGraphWalk
from application.reflection.records import Matched, Neighbourhood
from domain.scopes import ScopeRef

__all__ = ["SurrealGraphMatched"]

_MATCHES = """
LET $ids = $keys.map(|$k| type::record('entity', $k));
LET $edge_ids = $edge_keys.map(|$k| type::record('relates_to', $k));
LET $facts = SELECT body, in, out FROM $edge_ids;
LET $fact_ends = array::distinct(array::flatten($facts.map(|$e| [$e.in, $e.out])));
LET $links = SELECT id, body FROM supersedes WHERE in IN $ids OR out IN $ids ORDER BY id;
"""

#: ``graph_walk``'s hop (``HOP``) from ``$hop_from``, only when the search asks for one:
#: over no starting entity its ``WHERE in IN []`` would still scan the edges
_HOOD = "LET $hop_from = $start.map(|$k| type::record('entity', $k));\n" + HOP.replace(
    "$ids", "$hop_from"
)

_NO_HOOD = "LET $edges = []; LET $alike = []; LET $all = [];\n"

_RETURN = """
LET $read = array::distinct(array::concat($ids, $all));
RETURN {
    entities: (SELECT VALUE body FROM $read),
    facts: $facts.body,
    links: $links.body,
    edges: $edges.body,
    hood: $all.map(|$r| meta::id($r)),
    namesakes: $alike.map(|$r| meta::id($r)),
    mentions: (SELECT VALUE [meta::id(id), (->mentions->chunk).map(|$c| meta::id($c))]
        FROM array::distinct(array::concat($read, $fact_ends)))
};
"""


class SurrealGraphMatched(SurrealGraphWalk):
    async def matched(
        self,
        org_id: str,
        entity_ids: Sequence[str],
        edge_ids: Sequence[str],
        start: Sequence[str],
        limit: int,
        visible: frozenset[ScopeRef] | None,
    ) -> Matched:
        namespace = codec.namespace_for(org_id)
        empty = Matched(
            entities={},
            edges={},
            mentions={},
            links=[],
            hood=Neighbourhood(edges=[], entities={}, namesakes=[], mentions={}),
        )
        if not (entity_ids or edge_ids) or not await self._tables.exists(namespace):
            return empty
        walk = bool(start) and limit >= 1
        variables: dict[str, Any] = {
            "keys": list(dict.fromkeys(entity_ids)),
            "edge_keys": list(dict.fromkeys(edge_ids)),
        }
        hood = _NO_HOOD
        if walk:
            variables |= {"start": list(dict.fromkeys(start)), "limit": int(limit)}
            hood = _HOOD.replace("<SPACES>", "")
            if visible is not None:
                hood = _HOOD.replace("<SPACES>", " AND space IN $spaces")
                variables["spaces"] = sorted(codec.ref_code(ref) for ref in visible)
        found = await self._tables.read_last(
            namespace, _MATCHES + hood + _RETURN, variables, "reading the matched records"
        )
        if not found:
            return empty
        read = {e.entity_id: e for e in map(decode_entity, found.get("entities") or [])}
        edges = {e.edge_id: e for e in map(decode_edge, found.get("facts") or [])}
        # [entity, its chunks] pairs: no field names decoded per row (``chunk_lists``' rows)
        pairs = found.get("mentions") or []
        mentions = chunk_lists([{"e": e, "c": c} for e, c in pairs])
        reached = [str(i) for i in found.get("hood") or []]
        ends = (i for e in edges.values() for i in (e.from_id, e.to_id))
        asked = dict.fromkeys([*entity_ids, *ends])
        return Matched(
            entities={i: read[i] for i in dict.fromkeys(entity_ids) if i in read},
            edges={i: edges[i] for i in dict.fromkeys(edge_ids) if i in edges},
            mentions={i: mentions[i] for i in asked if i in mentions},
            links=[decode_link(b) for b in found.get("links") or []],
            hood=Neighbourhood(
                edges=[decode_edge(b) for b in found.get("edges") or []],
                entities={i: read[i] for i in reached if i in read},
                namesakes=[str(i) for i in found.get("namesakes") or []],
                mentions={i: mentions[i] for i in reached if i in mentions},
            ),
        )
