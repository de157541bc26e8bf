"""An organisation's derived graph held in process: what ``GraphStore.matched`` reads.

Why it is built this way: docs/decisions/internals.md#adapterssurrealgraph_imagepy.
"""

import bisect
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Generic, TypeVar

from adapters.surreal.graph_reads import decode_edge, decode_entity, decode_link
from application.ports.reflection_records import (
    DerivedEdge,
    DerivedEntity,
    Matched,
    Neighbourhood,
    Supersession,
)

__all__ = ["LOAD", "GraphImage"]

#: the whole graph in one read; the version first, so a write landing during the read
#: leaves an older token with newer rows (read again at the next check), never the reverse
LOAD = """
LET $version = graph_version:v.n;
RETURN {
    version: $version,
    entities: (SELECT VALUE [body, key, space] FROM entity),
    edges: (SELECT VALUE body FROM relates_to),
    links: (SELECT VALUE body FROM supersedes),
    mentions: (SELECT VALUE [meta::id(id), (->mentions->chunk).map(|$c| meta::id($c))]
        FROM entity)
};
"""


T = TypeVar("T")


def _distinct(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


class _ByEnd(Generic[T]):
    """Records between two entities (``relates_to`` edges, ``supersedes`` links) by id,
    and each entity's record ids (the records from or to it)."""

    def __init__(self, ends: Callable[[T], tuple[str, str]]) -> None:
        self.records: dict[str, T] = {}
        self._of: dict[str, set[str]] = {}
        self._ends = ends

    def of(self, entity_id: str) -> Iterable[str]:
        return self._of.get(entity_id, ())

    def put(self, record_id: str, record: T) -> None:
        self.drop(record_id)
        self.records[record_id] = record
        for end in self._ends(record):
            self._of.setdefault(end, set()).add(record_id)

    def drop(self, record_id: str) -> None:
        record = self.records.pop(record_id, None)
        if record is not None:
            for end in self._ends(record):
                self._of.get(end, set()).discard(record_id)

    def drop_touching(self, entity_id: str) -> None:
        for record_id in list(self.of(entity_id)):
            self.drop(record_id)


class GraphImage:
    """The derived graph of one namespace at one version (``token``)."""

    def __init__(self, token: str | None) -> None:
        self.token = token
        self._entities: dict[str, DerivedEntity] = {}
        #: each entity's stored name key (None: a row written before keys) and space code
        self._key: dict[str, str | None] = {}
        self._space: dict[str, str] = {}
        #: name key -> entity ids, sorted (the namesake lookup's ``ORDER BY id``)
        self._named: dict[str, list[str]] = {}
        self._edges: _ByEnd[DerivedEdge] = _ByEnd(lambda e: (e.from_id, e.to_id))
        self._links: _ByEnd[Supersession] = _ByEnd(lambda x: (x.newer_id, x.older_id))
        self._mentions: dict[str, list[str]] = {}

    @classmethod
    def loaded(cls, found: dict[str, Any]) -> "GraphImage":
        """The image from ``LOAD``'s answer."""
        version = found.get("version")
        image = cls(None if version is None else str(version))
        for body, key, space in found.get("entities") or []:
            image._put_entity(decode_entity(body), None if key is None else str(key), str(space))
        for body in found.get("edges") or []:
            edge = decode_edge(body)
            image._edges.put(edge.edge_id, edge)
        for body in found.get("links") or []:
            link = decode_link(body)
            image._links.put(link.edge_id, link)
        image._set_mentions(found.get("mentions") or [])
        return image

    def __len__(self) -> int:
        return len(self._entities)

    @property
    def absent(self) -> bool:
        """No graph: nothing held and no write ever set a token (no tables, or none yet)."""
        return self.token is None and not self._entities

    # -- what a search reads --------------------------------------------------------------

    def matched(
        self,
        entity_ids: Sequence[str],
        edge_ids: Sequence[str],
        start: Sequence[str],
        limit: int,
        spaces: frozenset[str] | None,
    ) -> Matched:
        """``graph_matched``'s query answered from the image (``spaces``: the visible
        spaces' codes, None for every space)."""
        ids = _distinct(entity_ids)
        edges, links = self._edges.records, self._links.records
        facts = [edges[i] for i in _distinct(edge_ids) if i in edges]
        link_ids = sorted({x for i in ids for x in self._links.of(i)})
        hop, namesakes, reached = self._hop(start, limit, spaces)
        fact_ends = [i for e in facts for i in (e.from_id, e.to_id)]
        asked = _distinct([*ids, *fact_ends])
        return Matched(
            entities={i: self._entities[i] for i in ids if i in self._entities},
            edges={e.edge_id: e for e in facts},
            mentions={i: list(self._mentions[i]) for i in asked if i in self._mentions},
            links=[links[x] for x in link_ids],
            hood=Neighbourhood(
                edges=hop,
                entities={i: self._entities[i] for i in reached if i in self._entities},
                namesakes=namesakes,
                mentions={i: list(self._mentions[i]) for i in reached if i in self._mentions},
            ),
        )

    def _hop(
        self, start: Sequence[str], limit: int, spaces: frozenset[str] | None
    ) -> tuple[list[DerivedEdge], list[str], list[str]]:
        """``graph_walk.HOP``: the edges (id order, at most ``limit``), the namesakes (per
        name key of an end, in id order, at most ``limit`` each) and every entity reached."""
        if not start or limit < 1:
            return [], [], []
        from_ = _distinct(start)
        edge_ids = sorted({x for i in from_ for x in self._edges.of(i)})[:limit]
        edges = [self._edges.records[x] for x in edge_ids]
        ends = _distinct(i for e in edges for i in (e.from_id, e.to_id))
        keys = _distinct(k for i in ends if (k := self._key.get(i)) is not None)
        alike: list[str] = []
        for key in keys:
            named = self._named.get(key, [])
            if spaces is not None:
                named = [i for i in named if self._space[i] in spaces]
            alike += named[:limit]
        return edges, alike, _distinct([*ends, *alike])

    # -- this process's writes, applied in place ------------------------------------------

    def promoted(
        self,
        entities: Sequence[tuple[DerivedEntity, str | None, str]],
        edges: Sequence[DerivedEdge],
        mentions: Sequence[Sequence[Any]],
    ) -> None:
        """A promotion's records (each entity with its key and space code) and the promoted
        entities' mention lists as the engine reads them after the write."""
        for entity, key, space in entities:
            self._put_entity(entity, key, space)
        for edge in edges:
            self._edges.put(edge.edge_id, edge)
        self._set_mentions(mentions)

    def superseded(self, links: Sequence[Supersession]) -> None:
        """Links written (one already there is kept as it is, as the store does)."""
        for link in links:
            if link.edge_id not in self._links.records:
                self._links.put(link.edge_id, link)

    def forgot(self, entity_ids: Iterable[str]) -> None:
        """Entities removed, with their edges, links and mentions."""
        for entity_id in entity_ids:
            self._edges.drop_touching(entity_id)
            self._links.drop_touching(entity_id)
            self._drop_entity(entity_id)
            self._mentions.pop(entity_id, None)

    def citing(self, source_id: str) -> list[str]:
        """The entities citing the source (what ``forget_source`` removes)."""
        return [i for i, e in self._entities.items() if source_id in e.source_ids]

    # -- the indexes ----------------------------------------------------------------------

    def _put_entity(self, entity: DerivedEntity, key: str | None, space: str) -> None:
        self._drop_entity(entity.entity_id)
        self._entities[entity.entity_id] = entity
        self._key[entity.entity_id] = key
        self._space[entity.entity_id] = space
        if key is not None:
            bisect.insort(self._named.setdefault(key, []), entity.entity_id)

    def _drop_entity(self, entity_id: str) -> None:
        if self._entities.pop(entity_id, None) is None:
            return
        key = self._key.pop(entity_id)
        self._space.pop(entity_id)
        if key is not None:
            named = self._named[key]
            named.remove(entity_id)
            if not named:
                del self._named[key]

    def _set_mentions(self, rows: Iterable[Sequence[Any]]) -> None:
        """``[entity, chunks]`` rows: each entity's chunks, first mention of each kept
        (``graph_reads.chunk_lists``); an entity with none has no entry."""
        for entity_id, chunks in rows:
            found = _distinct(str(c) for c in chunks or [])
            if found:
                self._mentions[str(entity_id)] = found
            else:
                self._mentions.pop(str(entity_id), None)
