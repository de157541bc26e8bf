"""Values that cross the ports: what an index holds and what a search returns."""

from datetime import datetime

import msgspec

from domain.lifecycle import RECALL_OPEN, Mark, recall_key
from domain.models import Chunk, Source, spoken_text
from domain.ranking.marks import TextMarks
from domain.scopes import LifecycleState, MemoryScope, ScopeRef
from domain.search_filters import SearchFilters, source_facets

__all__ = [
    "CandidateFilter",
    "EmbeddedChunk",
    "EmbeddingSpace",
    "IndexEntry",
    "IndexedText",
    "ScopeRef",
    "ScoredId",
    "SourceLifecycle",
    "SourceState",
    "StoreInfo",
]

Vector = list[float]


class EmbeddingSpace(msgspec.Struct, frozen=True, kw_only=True):
    """Which model made the vectors; vectors of two spaces are never mixed."""

    model: str
    dimension: int

    def __post_init__(self) -> None:
        if not self.model:
            raise ValueError("model must not be empty")
        if self.dimension < 1:
            raise ValueError("dimension must be >= 1")


class EmbeddedChunk(msgspec.Struct, frozen=True, kw_only=True):
    chunk: Chunk
    vector: Vector


class IndexEntry(msgspec.Struct, frozen=True, kw_only=True):
    """What a retrieval index needs of a chunk: text, vector and the filter fields.

    ``vector`` is None while the chunk's embedding is pending: the index then
    answers lexical queries for it at once and vector queries once it arrives.
    """

    chunk_id: str
    source_id: str
    text: str
    vector: Vector | None
    scope: MemoryScope
    scope_key: str | None
    lifecycle: LifecycleState = LifecycleState.ACTIVE
    occurred_at: datetime | None = None
    #: a conversation turn's role and position in its episode (the source)
    role: str | None = None
    turn_index: int | None = None
    #: the turn's speaker by name; ``text`` stays the chunk's verbatim text
    speaker: str | None = None
    #: its source's filter facets (domain.search_filters.source_facets): what ``filters`` match
    facets: frozenset[str] = frozenset()

    @property
    def ranker_text(self) -> str:
        """What the ranker reads (``spoken_text``): the speaker's name before the words."""
        return spoken_text(self.text, self.speaker)

    #: who may recall it, from domain.lifecycle: open, one owner only, or closed;
    #: None: as its own lifecycle allows (see ``recall_key``)
    recall: str | None = None

    @property
    def recall_key(self) -> str:
        return recall_key(self.lifecycle, (), None) if self.recall is None else self.recall

    @classmethod
    def of(
        cls, embedded: EmbeddedChunk, recall: str | None = None, source: Source | None = None
    ) -> "IndexEntry":
        """The entry of a chunk; ``recall`` is its recall key when the store knows one.

        ``source``: the chunk's source, whose type and metadata search filters match;
        an entry made without it matches no filter on them.
        """
        return cls.of_chunk(embedded.chunk, embedded.vector, recall, source)

    @classmethod
    def of_chunk(
        cls,
        c: Chunk,
        vector: Vector | None = None,
        recall: str | None = None,
        source: Source | None = None,
    ) -> "IndexEntry":
        """The entry of a chunk whose vector may still be pending (``None``)."""
        return cls(
            chunk_id=c.chunk_id,
            source_id=c.source_id,
            text=c.text,
            vector=vector,
            scope=c.scope,
            scope_key=c.scope_key,
            lifecycle=c.lifecycle,
            occurred_at=c.occurred_at,
            role=c.role,
            turn_index=c.turn_index,
            speaker=c.speaker,
            recall=recall,
            facets=frozenset()
            if source is None
            else source_facets(source.source_type, source.metadata),
        )


class IndexedText(msgspec.Struct, frozen=True, kw_only=True):
    """What the ranker reads of a candidate, straight from the index (no store round trip).

    Only candidates get this far; the few items finally returned are read
    again from the store and re-checked there.
    """

    chunk_id: str
    source_id: str
    #: a turn's speaker's name before its words (``spoken_text``); the searches saw the words
    text: str
    role: str | None = None
    turn_index: int | None = None
    occurred_at: datetime | None = None
    speaker: str | None = None
    #: what the ranker reads of ``text`` alone, where the index worked it out when written
    marks: TextMarks | None = None


class CandidateFilter(msgspec.Struct, frozen=True, kw_only=True):
    """Applied inside candidate queries, before ranking.

    ``visible`` lists the (scope, key) spaces the caller may read; ``None``
    means every space of the organisation. ``recall`` lists the recall keys
    (domain.lifecycle) the caller is admitted to: rows open to every reader,
    and the sensitive rows it owns; closed rows are never candidates.
    """

    visible: frozenset[ScopeRef] | None = None
    recall: frozenset[str] = frozenset({RECALL_OPEN})
    #: the caller's own narrowing (``filters``), applied inside the same queries; it only
    #: removes candidates, never adds any the fields above refuse
    narrow: SearchFilters | None = None

    def admits(self, scope: MemoryScope, scope_key: str | None, recall: str) -> bool:
        if recall not in self.recall:
            return False
        return self.visible is None or ScopeRef(scope, scope_key) in self.visible


class ScoredId(msgspec.Struct, frozen=True):
    item_id: str
    score: float


class SourceState(msgspec.Struct, frozen=True):
    """A source's id and lifecycle: what an access preview needs, without text."""

    source_id: str
    lifecycle: LifecycleState


class SourceLifecycle(msgspec.Struct, frozen=True, kw_only=True):
    """A source's lifecycle without its text: what recall re-checks before returning a chunk."""

    source_id: str
    scope: MemoryScope
    scope_key: str | None
    lifecycle: LifecycleState
    marks: frozenset[Mark] = frozenset()
    superseded_by: str | None = None
    duplicate_of: str | None = None
    owner: str

    @classmethod
    def of(cls, source: Source) -> "SourceLifecycle":
        return cls(
            source_id=source.source_id,
            scope=source.scope,
            scope_key=source.scope_key,
            lifecycle=source.lifecycle,
            marks=source.marks,
            superseded_by=source.superseded_by,
            duplicate_of=source.duplicate_of,
            owner=source.owner,
        )


class StoreInfo(msgspec.Struct, frozen=True, kw_only=True):
    engine: str
    url_kind: str
    #: size of the data directory's files (None: not on this machine's disk)
    data_bytes: int | None = None
    #: engine reopens that flushed its write-ahead log since this process started
    checkpoints: int = 0
    #: rows written since the last checkpoint, and the count that triggers the next one
    #: (None where the store has no checkpoints)
    written_since_checkpoint: int | None = None
    checkpoint_every: int | None = None
