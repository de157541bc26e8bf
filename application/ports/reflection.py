"""The ports derived memory adds: candidates, the graph, extractors and a sentence segmenter.

Each store has a contract suite in ``contracts/`` (``candidate_store.py``,
``graph_store.py``) that every adapter passes.
"""

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from application.ports.derived import DerivedText, DerivedVector
from application.ports.records import ScoredId, Vector
from application.ports.reflection_records import (
    DerivedEdge,
    DerivedEntity,
    Matched,
    Mention,
    Neighbourhood,
    Supersession,
)
from domain.models import Source
from domain.reflection.candidates import (
    CandidateType,
    Extracted,
    ReflectionCandidate,
    ReviewState,
)
from domain.scopes import ScopeRef

__all__ = ["CandidateStore", "Extractor", "GraphStore", "SentenceSegmenter"]


@runtime_checkable
class CandidateStore(Protocol):
    """Reflection candidates per organisation, replaced whole when reviewed."""

    async def add_candidates(self, candidates: Sequence[ReflectionCandidate]) -> list[str]:
        """Keep the candidates whose id is new; the ids of those it kept (a re-run adds none)."""
        ...

    async def get_candidates(
        self, org_id: str, candidate_ids: Sequence[str]
    ) -> dict[str, ReflectionCandidate]: ...

    async def save_candidate(self, candidate: ReflectionCandidate) -> None:
        """Replace a stored candidate (a review changed it)."""
        ...

    async def list_candidates(
        self, org_id: str, state: ReviewState | None, after: str | None, limit: int
    ) -> list[ReflectionCandidate]:
        """Candidates in id order strictly after ``after``, of one state or any."""
        ...

    async def forget_source(self, org_id: str, source_id: str) -> int:
        """Remove every candidate citing the source (its text left: redact, delete); how many."""
        ...

    async def drop_candidates(self, org_id: str) -> None: ...


@runtime_checkable
class GraphStore(Protocol):
    """The native derived graph: ``entity`` rows; ``relates_to``, ``mentions`` and ``supersedes``
    edges."""

    async def promote(
        self,
        entities: Sequence[DerivedEntity],
        edges: Sequence[DerivedEdge],
        mentions: Sequence[Mention],
    ) -> None:
        """Write one accepted candidate's records, all or nothing (entities first)."""
        ...

    async def get_entities(
        self, org_id: str, entity_ids: Sequence[str]
    ) -> dict[str, DerivedEntity]: ...

    async def entity_named(
        self, org_id: str, kind: CandidateType, name: str, scope: ScopeRef
    ) -> DerivedEntity | None:
        """The entity of this type in this space whose name equals ``name`` once case and
        spacing are set aside (``merging.name_key``), the smallest id if several; None."""
        ...

    async def entity_lexical(
        self, org_id: str, query: str, limit: int, visible: frozenset[ScopeRef] | None
    ) -> list[ScoredId]:
        """BM25 over entity names (type included), best first, only in ``visible`` spaces."""
        ...

    async def mentions_of(self, org_id: str, entity_ids: Sequence[str]) -> dict[str, list[str]]:
        """The chunk ids each entity mentions."""
        ...

    async def edges_of(self, org_id: str, entity_id: str) -> list[DerivedEdge]:
        """``relates_to`` edges from or to the entity, in edge-id order."""
        ...

    async def recent_entities(
        self,
        org_id: str,
        types: frozenset[CandidateType],
        visible: frozenset[ScopeRef] | None,
        limit: int,
    ) -> list[DerivedEntity]:
        """Entities of these types in ``visible`` spaces, newest ``valid_from`` first (then
        entity id): what a wake pack starts from."""
        ...

    async def entities_citing(self, org_id: str, source_ids: Sequence[str]) -> list[DerivedEntity]:
        """Entities citing any of these sources, in entity-id order."""
        ...

    async def edge_lexical(
        self, org_id: str, query: str, limit: int, visible: frozenset[ScopeRef] | None
    ) -> list[ScoredId]:
        """BM25 over ``relates_to`` facts, best first, only in ``visible`` spaces."""
        ...

    async def get_edges(self, org_id: str, edge_ids: Sequence[str]) -> dict[str, DerivedEdge]: ...

    async def neighbours(
        self, org_id: str, entity_ids: Sequence[str], limit: int
    ) -> list[DerivedEdge]:
        """``relates_to`` edges from or to any of the entities, in edge-id order, at most
        ``limit``: one hop of graph expansion."""
        ...

    async def neighbourhood(
        self,
        org_id: str,
        entity_ids: Sequence[str],
        limit: int,
        visible: frozenset[ScopeRef] | None,
    ) -> Neighbourhood:
        """One hop in one read: ``neighbours(entity_ids, limit)``, the entities at both ends
        of those edges, the entities in ``visible`` spaces named like an end (any type; at
        most ``limit`` per name, in id order) and what all of them mention."""
        ...

    async def matched(
        self,
        org_id: str,
        entity_ids: Sequence[str],
        edge_ids: Sequence[str],
        start: Sequence[str],
        limit: int,
        visible: frozenset[ScopeRef] | None,
    ) -> Matched:
        """What a search reads of its matches, in one read: ``get_entities(entity_ids)``,
        ``get_edges(edge_ids)``, ``mentions_of`` those entities and both ends of those
        edges, ``supersessions(entity_ids)`` and ``neighbourhood(start, limit, visible)``
        (empty when ``start`` is)."""
        ...

    async def supersede(self, links: Sequence[Supersession]) -> None:
        """Write ``SUPERSEDES`` edges (newer -> older); both ends must exist. A link already
        there is kept as it is."""
        ...

    async def supersessions(self, org_id: str, entity_ids: Sequence[str]) -> list[Supersession]:
        """The ``SUPERSEDES`` edges from or to any of the entities, in edge-id order."""
        ...

    async def entity_vector(
        self,
        org_id: str,
        vector: Vector,
        limit: int,
        visible: frozenset[ScopeRef] | None,
        model: str,
    ) -> list[ScoredId]:
        """Entities by cosine similarity of their ``model`` vector to ``vector`` (the score),
        best first (then id), only in ``visible`` spaces; records without one are absent."""
        ...

    async def edge_vector(
        self,
        org_id: str,
        vector: Vector,
        limit: int,
        visible: frozenset[ScopeRef] | None,
        model: str,
    ) -> list[ScoredId]:
        """``relates_to`` edges by cosine similarity of their fact's ``model`` vector, as
        ``entity_vector``."""
        ...

    async def unembedded(self, org_id: str, model: str, limit: int) -> list[DerivedText]:
        """At most ``limit`` records with no vector of ``model`` (entities first, then edges,
        each in id order) and the text each is embedded from."""
        ...

    async def attach_vectors(
        self, org_id: str, model: str, vectors: Sequence[DerivedVector]
    ) -> None:
        """Give the records their ``model`` vectors (replacing any other); a record gone
        meanwhile is skipped. Promoting an entity again drops its vector."""
        ...

    async def forget_source(self, org_id: str, source_id: str) -> int:
        """Remove every entity citing the source, with its edges (``SUPERSEDES`` included)
        and mentions; how many entities (the source's text left: redact, delete)."""
        ...

    async def drop_graph(self, org_id: str) -> None: ...


@runtime_checkable
class Extractor(Protocol):
    """Finds candidates in one readable, active source."""

    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str: ...

    async def extract(self, source: Source) -> list[Extracted]: ...


class SentenceSegmenter(Protocol):
    """Where the sentences of one line of text begin and end (the rules extractor's reader).

    A real segmenter, not a split at every dot: versions, host names,
    abbreviations, decimals, initials, URLs and addresses end no sentence.
    """

    def sentences(self, text: str) -> Sequence[tuple[int, int]]:
        """``[start, end)`` offsets into ``text``, in order, not overlapping."""
        ...
