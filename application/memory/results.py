"""What the use cases return; surfaces encode these as they are."""

from datetime import datetime

import msgspec

from application.ports.derived import DerivedHit
from application.ports.writes import EmbeddingState
from domain.ranking.reasons import RankReason
from domain.scopes import LifecycleState, MemoryScope

__all__ = [
    "ContextItem",
    "ContextPack",
    "EpisodeGroup",
    "ExplainedPack",
    "ExplainedSearch",
    "Hit",
    "RememberResult",
    "SearchHit",
    "SearchResults",
    "Signals",
]


class RememberResult(msgspec.Struct, frozen=True, kw_only=True):
    source_id: str
    chunk_ids: list[str]
    #: chunks whose vectors came from the embedding cache rather than the model
    cached_embeddings: int = 0
    #: "indexed": every vector is searchable; "pending": the embedding lane is making them
    #: (the memory is already searchable by its words)
    embedding: EmbeddingState = EmbeddingState.INDEXED


class Signals(msgspec.Struct, frozen=True, kw_only=True):
    """A hit's rank in each retrieval signal that found it: one ``<signal>_rank`` field
    per ``domain.signals.Signal``, ``None`` where that signal did not find it."""

    lexical_rank: int | None = None
    vector_rank: int | None = None
    #: rank of the item's episode (conversation) by words and by meaning
    episode_lexical_rank: int | None = None
    episode_vector_rank: int | None = None
    #: set when the item joined as the neighbour of a strong turn (the seed's rank)
    neighbour_rank: int | None = None
    #: for a counting question: rank by the meaning of its subject alone ("doctors")
    subject_vector_rank: int | None = None
    #: rank of the promoted record (derived memory) whose mention brought the item
    entity_rank: int | None = None
    #: rank of the best conversation window (a turn and its neighbours) holding the item
    window_rank: int | None = None
    #: rank among the chunks reached by graph expansion from the matched records
    graph_rank: int | None = None
    #: rank of the relationship fact (derived memory) whose ends mention the item
    relation_rank: int | None = None
    #: rank of the promoted record matched by meaning whose mention brought the item
    entity_vector_rank: int | None = None


class Hit(msgspec.Struct, frozen=True, kw_only=True):
    """What a search result and a context pack's item both say of one chunk."""

    source_id: str
    chunk_id: str
    text: str
    score: float
    signals: Signals
    scope: MemoryScope
    scope_key: str | None = None
    occurred_at: datetime | None = None
    created_at: datetime
    role: str | None = None
    turn_index: int | None = None
    #: who said it, by name, when the turn was remembered with a speaker
    speaker: str | None = None
    #: why it ranks here, in words (signals and ranker rules)
    reason: str = ""
    #: its source's lifecycle: a superseded or stale source ranks below fresh evidence
    lifecycle: LifecycleState = LifecycleState.ACTIVE
    stale: bool = False
    superseded_by: str | None = None
    duplicate_of: str | None = None


class SearchHit(Hit, frozen=True, kw_only=True):
    """One search result."""


class SearchResults(msgspec.Struct, frozen=True, kw_only=True):
    results: list[SearchHit]
    #: relevant hits the caller may not have (hidden, redacted, another's sensitive
    #: memory): counted, never shown
    withheld: int = 0
    #: redacted sources of the caller's spaces whose summary matches the query: counted, never
    #: shown (``application.retrieval.withheld``)
    withheld_redacted: int = 0
    #: promoted records (derived memory) that matched, each with its raw source ids; shown
    #: only to a caller who may read every one of those sources
    derived: list[DerivedHit] = msgspec.field(default_factory=list)
    #: candidates held back because nothing in memory is about the question
    #: (``domain.relevance_gate``): ``results`` is then empty and ``reason`` says why
    below_floor: int = 0
    #: ``nothing_relevant`` when the gate held every candidate back, else null
    reason: str | None = None


class ContextItem(Hit, frozen=True, kw_only=True):
    """One item of a context pack: a hit, with its tokens and its episode's time."""

    token_count: int
    #: when its episode (the conversation) happened, time included where known: a reader
    #: answers "when" from it ("last weekend", said in a talk of Monday 12 June)
    episode_occurred_at: datetime | None = None


class EpisodeGroup(msgspec.Struct, frozen=True, kw_only=True):
    """The chosen turns of one episode (source), in turn order, with when it happened."""

    source_id: str
    occurred_at: datetime | None
    chunk_ids: list[str]
    #: the number ``rendered`` cites this episode by ("[1]" opens the first block)
    number: int = 0


class ContextPack(msgspec.Struct, frozen=True, kw_only=True):
    query: str
    token_budget: int
    token_count: int
    encoding: str
    #: grouped by episode (best episode first), turns in order inside each
    items: list[ContextItem]
    #: relevant items left out because they did not fit the budget
    omitted: int = 0
    #: relevant items the caller may not have (hidden, redacted, another's sensitive
    #: memory): counted, never shown
    withheld: int = 0
    #: relevant redacted sources (their summary matches the query): counted, never shown
    withheld_redacted: int = 0
    episodes: list[EpisodeGroup] = msgspec.field(default_factory=list)
    #: the items as a reader reads them: per episode its date, then ``speaker: words``
    #: in spoken order, "…" between turns not chosen together (``domain.rendering``)
    rendered: str = ""
    #: tokens of ``rendered``: the items' tokens (``token_count``) plus headers and names
    rendered_token_count: int = 0
    #: promoted records that matched, with their raw source ids (as in search)
    derived: list[DerivedHit] = msgspec.field(default_factory=list)
    #: candidates left out because nothing in memory is about the question
    #: (``domain.relevance_gate``): the items kept then say "weak match"
    below_floor: int = 0
    #: ``nothing_relevant`` when the gate closed the pack, else null
    reason: str | None = None


class ExplainedSearch(msgspec.Struct, frozen=True, kw_only=True):
    """Search results and each hit's reasons as values, by chunk id: for a surface that
    says them in its own words (the web page) rather than as the ``reason`` sentence."""

    results: SearchResults
    reasons: dict[str, list[RankReason]]


class ExplainedPack(msgspec.Struct, frozen=True, kw_only=True):
    """A context pack and each item's reasons as values, by chunk id (as ``ExplainedSearch``)."""

    pack: ContextPack
    reasons: dict[str, list[RankReason]]
