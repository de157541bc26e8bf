"""The native records an accepted candidate becomes: entities, typed edges, mentions.

Each carries what a reader needs to trust it and what the policy needs to
gate it: the raw source ids and their content hashes, the transform (the
extractor and its version), the write decision (its audit id and reason),
freshness (``valid_from``: the newest source's time; ``promoted_at``) and a
confidence. A derived record is shown only to someone who may read every
one of its sources (``application.reflection.derived``).
"""

from datetime import datetime

import msgspec

from domain.reflection.candidates import CandidateType, Span
from domain.scopes import ScopeRef

__all__ = [
    "DerivedEdge",
    "DerivedEntity",
    "Matched",
    "Mention",
    "Neighbourhood",
    "Provenance",
    "Supersession",
]


class Provenance(msgspec.Struct, frozen=True, kw_only=True):
    """Where a derived record comes from and who let it in."""

    source_ids: tuple[str, ...]
    source_hashes: dict[str, str]
    #: ``extractor@version``
    transform: str
    #: the audit id of the accept that wrote it, and the policy's reason
    decision_id: str
    decision_reason: str
    candidate_id: str
    promoted_by: str
    promoted_at: datetime
    valid_from: datetime
    confidence: float
    #: later candidates merged into this record (``application.reflection.merging``)
    merged_from: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.source_ids or set(self.source_hashes) != set(self.source_ids):
            raise ValueError("a derived record cites its sources, each with its hash")


class DerivedEntity(msgspec.Struct, frozen=True, kw_only=True):
    """A decision, task, person ... promoted into the organisation's graph (``entity`` rows)."""

    entity_id: str
    org_id: str
    type: CandidateType
    name: str
    scope: ScopeRef
    spans: tuple[Span, ...] = ()
    provenance: Provenance

    def __post_init__(self) -> None:
        if self.type is CandidateType.RELATIONSHIP:
            raise ValueError("a relationship is an edge, not an entity")
        if not self.name.strip():
            raise ValueError("an entity has a name")

    @property
    def source_ids(self) -> tuple[str, ...]:
        return self.provenance.source_ids


class DerivedEdge(msgspec.Struct, frozen=True, kw_only=True):
    """A typed ``relates_to`` edge between two entities, with the fact it states."""

    edge_id: str
    org_id: str
    from_id: str
    to_id: str
    kind: str
    fact: str
    scope: ScopeRef
    provenance: Provenance


class Mention(msgspec.Struct, frozen=True, kw_only=True):
    """An entity is supported by this chunk (a ``mentions`` edge)."""

    entity_id: str
    chunk_id: str


class Supersession(msgspec.Struct, frozen=True, kw_only=True):
    """A ``SUPERSEDES`` edge: the newer record replaces the older one from ``valid_from``.

    ``reason`` says what made the link (an accepted candidate, a source-level
    ``supersede`` correction); ``source_ids`` are the raw sources that support
    the replacement (the newer record's, and for a correction both sources), so
    the trail stays citable. Recall prefers the newer record and keeps the older
    one as history.
    """

    edge_id: str
    org_id: str
    newer_id: str
    older_id: str
    reason: str
    source_ids: tuple[str, ...]
    valid_from: datetime

    def __post_init__(self) -> None:
        if self.newer_id == self.older_id:
            raise ValueError("a record does not supersede itself")
        if not self.source_ids:
            raise ValueError("a supersession cites its sources")
        if not self.reason.strip():
            raise ValueError("a supersession says why")


class Neighbourhood(msgspec.Struct, frozen=True, kw_only=True):
    """One hop of graph expansion in one read (``GraphStore.neighbourhood``).

    Why one value: a hop used to be four or more round trips one after another
    (the edges, their ends, each end's namesakes, the mentions). Nothing here is
    gated yet: the caller still checks every record's space and sources.
    """

    #: ``relates_to`` edges from or to the starting entities, edge-id order, at most ``limit``
    edges: list[DerivedEdge]
    #: the edges' ends, and the entities in ``visible`` spaces named like one of them
    entities: dict[str, DerivedEntity]
    #: those namesakes' ids: per name (``merging.name_key``) in id order, at most ``limit`` each
    namesakes: list[str]
    #: the chunk ids each of ``entities`` mentions (absent: none)
    mentions: dict[str, list[str]]


class Matched(msgspec.Struct, frozen=True, kw_only=True):
    """What a derived search reads of the records it matched, in one read
    (``GraphStore.matched``).

    Why one value: a search used to read the matched entities, their mentions,
    their supersessions, the first hop of expansion, the matched relationship
    facts and their ends' mentions as six round trips (four side by side, then
    two); on the embedded engine each costs its own parse, plan and decoding
    (benchmarks/RESULTS.md). Nothing here is gated yet.
    """

    #: the matched entities that exist (``get_entities``)
    entities: dict[str, DerivedEntity]
    #: the matched ``relates_to`` edges that exist (``get_edges``)
    edges: dict[str, DerivedEdge]
    #: the chunk ids each matched entity and each matched edge's two ends mention
    mentions: dict[str, list[str]]
    #: ``SUPERSEDES`` edges from or to any matched entity, in edge-id order
    links: list[Supersession]
    #: one hop from the ``start`` entities (``neighbourhood``); empty when none was asked
    hood: Neighbourhood
