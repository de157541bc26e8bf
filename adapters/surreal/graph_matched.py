"""What a derived search reads of its matches, in one SurrealDB round trip (``matched``).

Why it is built this way: docs/decisions/internals.md#adapterssurrealgraph_matchedpy.
"""

import asyncio
import time
from collections.abc import Sequence
from typing import Any

from adapters.surreal import codec
from adapters.surreal.connection import SurrealConnection
from adapters.surreal.graph_image import LOAD, GraphImage
from adapters.surreal.graph_reads import chunk_lists, decode_edge, decode_entity, decode_link
from adapters.surreal.graph_walk import HOP, SurrealGraphWalk
from application.ports.reflection_records import Matched, Neighbourhood
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


#: the namespace's graph version token (None: never written by a release that keeps one)
_VERSION = "RETURN graph_version:v.n;"

#: what every graph write runs inside its transaction: the token it replaces, and a new one
BUMP = (
    "LET $before = graph_version:v.n;\nUPSERT graph_version:v SET n = $graph_token RETURN NONE;\n"
)


def _token(value: Any) -> str | None:
    return None if value is None else str(value)


class SurrealGraphMatched(SurrealGraphWalk):
    def __init__(self, connection: SurrealConnection, *, lexical_in_process: bool = True) -> None:
        super().__init__(connection, lexical_in_process=lexical_in_process)
        #: False: ``matched`` asks the engine on every search (the benchmark's A/B arm)
        self.graph_in_process = True
        #: a token read serves the graph reads that start within this many seconds of it:
        #: the full text, the vectors and ``matched`` of one search share one read
        self.recheck_s = 0.05
        #: an organisation with no graph is checked again after this long, as the held full
        #: text was (60 s): its searches make no graph round trip at all, as on main
        self.absent_recheck_s = 60.0
        #: organisations whose graph is held at once (a server of many keeps the busiest)
        self.max_graphs = 64
        self._images: dict[str, GraphImage] = {}
        self._checked: dict[str, float] = {}
        self._checking: dict[str, asyncio.Future[GraphImage]] = {}

    async def _fresh(self, namespace: str) -> bool:
        """Before a search reads what is held of the graph: another process's writes seen.
        A namespace with no graph has no full text or vectors to load either (its image is
        checked again after ``absent_recheck_s``, as held full text was)."""
        if not self.graph_in_process:
            return False
        return (await self._image(namespace)).absent

    async def _image(self, namespace: str) -> GraphImage:
        """The held graph, checked against the store's token (one check at a time per
        namespace, shared by the reads waiting on it); empty when there is no graph."""
        image = self._images.get(namespace)
        if image is not None:
            window = self.absent_recheck_s if image.absent else self.recheck_s
            if time.monotonic() - self._checked.get(namespace, -1e9) < window:
                return image
        check = self._checking.get(namespace)
        if check is None:
            check = asyncio.ensure_future(self._check(namespace, image))
            self._checking[namespace] = check
            check.add_done_callback(lambda _: self._checking.pop(namespace, None))
        return await asyncio.shield(check)

    async def _check(self, namespace: str, image: GraphImage | None) -> GraphImage:
        began = time.monotonic()
        if image is not None:
            token = _token(await self._tables.read_last(namespace, _VERSION, {}, "graph version"))
            if token == image.token and self._images.get(namespace) is image:
                self._checked[namespace] = began
                return image
        found = await self._tables.read_last(namespace, LOAD, {}, "reading the derived graph")
        # no graph tables: held as an empty graph with no token (``absent``)
        fresh = GraphImage(None) if found is None else GraphImage.loaded(found)
        if image is not None:
            # another process wrote: the held full text and vectors are stale too
            self._graph_changed(namespace)
        self._images[namespace] = fresh
        self._checked[namespace] = began
        if len(self._images) > self.max_graphs:  # the least recently checked goes
            oldest = min(self._images, key=lambda n: self._checked.get(n, -1e9))
            del self._images[oldest]
        return fresh

    def _wrote(self, namespace: str, before: Any, token: str) -> GraphImage | None:
        """This process wrote the graph (replacing version ``before`` by ``token``): the
        held image to update in place, or None (and nothing held) when another write came
        between the image and this one."""
        image = self._images.get(namespace)
        if image is None:
            return None
        if image.token != _token(before):
            del self._images[namespace]
            return None
        image.token = token
        return image

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
        if self.graph_in_process:
            image = await self._image(namespace)
            spaces = None if visible is None else frozenset(codec.ref_code(r) for r in visible)
            return image.matched(entity_ids, edge_ids, start, limit, spaces)
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
