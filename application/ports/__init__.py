"""Ports: the roles the use cases need filled. Adapters implement them.

Each port has a contract suite in ``contracts/`` that every adapter passes.
"""

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Protocol, runtime_checkable

from application.ports.changes import ChangePosition, SourceChanges
from application.ports.records import (
    CandidateFilter,
    EmbeddedChunk,
    EmbeddingSpace,
    IndexedText,
    IndexEntry,
    ScoredId,
    SourceLifecycle,
    SourceState,
    StoreInfo,
    Vector,
)
from application.ports.writes import EmbeddingCounts, MemoryWrite, PendingChunk
from domain.models import Chunk, Source
from domain.scopes import LifecycleState, ScopeRef

__all__ = [
    "Clock",
    "Embedder",
    "IdGenerator",
    "MemoryStore",
    "PreloadingEmbedder",
    "QueryEmbedder",
    "RetrievalIndex",
    "TokenCounter",
]


@runtime_checkable
class Clock(Protocol):
    def now(self) -> datetime:
        """The current time, timezone-aware (UTC)."""
        ...


@runtime_checkable
class IdGenerator(Protocol):
    def new_id(self) -> str:
        """A new unique id: lowercase letters and digits only, sortable by creation."""
        ...


@runtime_checkable
class TokenCounter(Protocol):
    @property
    def encoding(self) -> str: ...

    def count(self, text: str) -> int: ...


@runtime_checkable
class Embedder(Protocol):
    """Turns text into unit-length vectors of one embedding space."""

    @property
    def space(self) -> EmbeddingSpace: ...

    async def embed(self, texts: Sequence[str]) -> list[Vector]:
        """One vector per text, same order; raises UpstreamError on failure."""
        ...


@runtime_checkable
class QueryEmbedder(Protocol):
    """An embedder with a cheaper run for search queries (optional capability).

    Its query vectors are in the same space as ``embed``'s and close to them
    (the contract suite asks cosine >= 0.999), not necessarily equal: the offline
    MiniLM runs queries in int8 arithmetic. Documents always go through ``embed``.
    """

    async def embed_queries(self, texts: Sequence[str]) -> list[Vector]: ...


@runtime_checkable
class PreloadingEmbedder(Protocol):
    """An embedder whose model loads on this machine (optional capability).

    ``preload`` loads what a search query needs ahead of the first one, so a
    start pays for it while the store opens instead of inside the first search.
    """

    async def preload(self) -> None: ...


@runtime_checkable
class MemoryStore(Protocol):
    """The truth: raw sources, their chunks and vectors, per organisation."""

    def info(self) -> StoreInfo: ...

    async def prepare(self, org_id: str, space: EmbeddingSpace) -> None:
        """Apply schema migrations for the organisation and record its embedding space.

        Raises ConflictError(embedder_mismatch) when the organisation already
        holds vectors of another space.
        """
        ...

    async def save_memory(self, source: Source, chunks: Sequence[EmbeddedChunk]) -> None:
        """Write the source, then its chunks, all or nothing."""
        ...

    async def save_memories(self, memories: Sequence[MemoryWrite]) -> None:
        """Write every source and its chunks in one transaction, all or nothing.

        A chunk with a vector in its write is saved indexed; every other chunk is
        saved ``pending``: its text is stored (and lexically searchable) now, its
        vector comes later through ``attach_vectors``. The pending state is the
        durable embedding queue.
        """
        ...

    async def pending_embeddings(self, org_id: str, limit: int) -> list[PendingChunk]:
        """Chunks of the organisation waiting for a vector, oldest (by chunk id) first,
        at most ``limit``; dead-lettered chunks are not among them."""
        ...

    async def attach_vectors(
        self, org_id: str, model: str, vectors: Mapping[str, Vector]
    ) -> list[str]:
        """Give chunks their vectors (state indexed) and cache each by (model, text hash),
        in one transaction; returns the ids that still existed (a chunk deleted meanwhile
        is skipped, and its text's vector is not cached)."""
        ...

    async def embedding_failed(
        self, org_id: str, chunk_ids: Sequence[str], dead_after: int
    ) -> list[str]:
        """Count one more failed attempt for each chunk; a chunk reaching ``dead_after``
        attempts moves to the dead letter (state failed). Returns the ids dead-lettered now."""
        ...

    async def requeue_failed(self, org_id: str) -> int:
        """Move the dead-lettered chunks back to pending with no attempts; how many moved."""
        ...

    async def embedding_counts(self, org_id: str) -> EmbeddingCounts:
        """Pending and dead-lettered chunks, and when the oldest pending one was written."""
        ...

    async def get_source(self, org_id: str, source_id: str) -> Source | None: ...

    async def get_chunks(self, org_id: str, chunk_ids: Sequence[str]) -> dict[str, Chunk]: ...

    async def get_sources(self, org_id: str, source_ids: Sequence[str]) -> dict[str, Source]:
        """The sources with these ids that exist (the re-check of a search reads them)."""
        ...

    async def chunks_with_sources(
        self, org_id: str, chunk_ids: Sequence[str]
    ) -> tuple[dict[str, Chunk], dict[str, SourceLifecycle]]:
        """``get_chunks`` and the ``source_lifecycles`` of their sources, in one round trip:
        what a search reads back to re-check what it returns."""
        ...

    async def source_lifecycles(
        self, org_id: str, source_ids: Sequence[str]
    ) -> dict[str, SourceLifecycle]:
        """The lifecycle of the sources with these ids that exist, without their text."""
        ...

    async def update_source(
        self, source: Source, *, expected_version: int, drop_text: bool
    ) -> None:
        """Write a corrected source (its lifecycle, marks, links, corrections, version, content)
        and give its chunks its lifecycle and recall key, all or nothing.

        ``drop_text``: delete its chunks and their vectors instead, and the cached
        embeddings of their texts that no other chunk of the organisation uses
        (redact, delete). Raises NotFoundError when the source does not exist and
        ConflictError(source_changed) when its stored version is not ``expected_version``.
        """
        ...

    async def list_sources(self, org_id: str, after: str | None, limit: int) -> list[Source]:
        """Sources in source-id order, strictly after ``after``, any lifecycle (export, bulk)."""
        ...

    async def redacted_sources(
        self,
        org_id: str,
        visible: frozenset[ScopeRef] | None,
        terms: frozenset[str],
        limit: int,
    ) -> list[SourceLifecycle]:
        """Redacted sources of these spaces (``None``: every space) whose remainder (what
        the redaction left: its summary, or the text outside its spans) shares a word with
        ``terms``, in source-id order, at most ``limit``; none for no terms. Words are
        compared folded (``domain.withheld_match.remainder_terms``), a store may keep them
        when the redaction is written; a pack counts the matches as withheld, never shown."""
        ...

    async def linked_sources(self, org_id: str, source_id: str) -> list[str]:
        """Ids of the sources superseded by, or duplicates of, this one (inspect's back links)."""
        ...

    async def count_chunks(self, org_id: str) -> int: ...

    async def count_sources(self, org_id: str) -> int:
        """Sources stored for the organisation, whatever their lifecycle (0 if none)."""
        ...

    async def chunks_of_source(self, org_id: str, source_id: str) -> list[Chunk]:
        """What was derived from one source: its chunks in ordinal order."""
        ...

    async def source_states(self, org_id: str, space: ScopeRef, limit: int) -> list[SourceState]:
        """Sources of one memory space in source-id order, any lifecycle, at most ``limit``."""
        ...

    async def recent_sources(
        self, org_id: str, visible: frozenset[ScopeRef] | None, limit: int
    ) -> list[SourceLifecycle]:
        """Active sources of these spaces (``None``: every space), newest id first, at most
        ``limit``, without their text: what a wake pack falls back to."""
        ...

    async def scan_index_entries(
        self, org_id: str, after: str | None, limit: int
    ) -> list[IndexEntry]:
        """Chunks in chunk-id order, strictly after ``after``, at most ``limit``.

        A chunk-id cursor costs the embedded engine a scan from the table's start on
        every page; a rebuild pages with ``scan_index_sources`` instead."""
        ...

    async def scan_index_sources(
        self, org_id: str, after: str | None, limit: int
    ) -> list[IndexEntry]:
        """The chunks of whole sources, strictly after the source id ``after``, in
        source-id order (a source's own in chunk-id order): sources are added until the
        page holds ``limit`` chunks or more, so it may hold more by one source's chunks.
        What rebuilds a derived index: the next page starts after its last source."""
        ...

    async def change_position(self, org_id: str) -> ChangePosition:
        """Where the organisation's change sequence stands (application.ports.changes)."""
        ...

    async def changed_sources(self, org_id: str, after: int, limit: int) -> SourceChanges:
        """Sources whose latest index-visible change (chunks saved, vectors attached,
        corrected, redacted, deleted) has a sequence above ``after``, by sequence, at most
        ``limit``: what a derived index restored from a snapshot reads to catch up."""
        ...

    async def index_entries_of(self, org_id: str, source_ids: Sequence[str]) -> list[IndexEntry]:
        """The current ``scan_index_entries`` entries of these sources' chunks, in chunk-id
        order (none for a source whose chunks are gone)."""
        ...

    async def cached_embeddings(
        self, org_id: str, model: str, hashes: Sequence[str]
    ) -> dict[str, Vector]: ...

    async def cache_embeddings(
        self, org_id: str, model: str, vectors: Mapping[str, Vector]
    ) -> None: ...

    async def drop_organization(self, org_id: str) -> None:
        """Remove everything the organisation stored."""
        ...

    async def close(self) -> None: ...


@runtime_checkable
class RetrievalIndex(Protocol):
    """Ranked candidate lists over chunks. May be native to the store or derived from it."""

    @property
    def name(self) -> str: ...

    def is_ready(self, org_id: str) -> bool:
        """False until a derived index has been rebuilt from the store for the organisation."""
        ...

    async def add(self, org_id: str, entries: Sequence[IndexEntry]) -> None:
        """Index chunks the store has just saved (write-through).

        An entry without a vector (embedding pending) is searchable lexically at once
        and never a vector candidate until ``attach_vectors`` gives it one.
        """
        ...

    async def attach_vectors(self, org_id: str, vectors: Mapping[str, Vector]) -> None:
        """Pending chunks got their vectors: vector queries find them from now on.

        Ids the index does not hold, or whose source was removed, are ignored.
        """
        ...

    async def mark_ready(self, org_id: str) -> None: ...

    async def update(
        self, org_id: str, source_id: str, lifecycle: LifecycleState, recall: str
    ) -> None:
        """A correction changed the source: its chunks now carry this lifecycle and recall key.

        Takes effect for the next query (a hidden source vanishes from search at once).
        """
        ...

    async def remove(self, org_id: str, source_id: str) -> None:
        """The source's chunks are gone from the store (redact, delete): forget their text
        and vectors, so no query can return them."""
        ...

    async def lexical(
        self, org_id: str, query: str, limit: int, where: CandidateFilter
    ) -> list[ScoredId]:
        """BM25 over chunk text, best first."""
        ...

    async def vector(
        self, org_id: str, vector: Vector, limit: int, where: CandidateFilter
    ) -> list[ScoredId]:
        """Cosine similarity, best first."""
        ...

    async def episode_lexical(
        self, org_id: str, query: str, limit: int, where: CandidateFilter
    ) -> list[ScoredId]:
        """BM25 over episodes (a source's visible chunks read as one text); ids are source ids.

        A fact and the words that frame it often sit in different turns of one
        conversation; only the episode as a whole matches them all.
        """
        ...

    async def episode_vector(
        self, org_id: str, vector: Vector, limit: int, where: CandidateFilter
    ) -> list[ScoredId]:
        """Episodes by the mean cosine of their visible chunks, best first; ids are source ids."""
        ...

    async def episode_members(
        self, org_id: str, source_ids: Sequence[str], where: CandidateFilter
    ) -> dict[str, list[str]]:
        """The visible chunk ids of each episode, in turn order (expansion to neighbours)."""
        ...

    async def candidate_texts(
        self, org_id: str, chunk_ids: Sequence[str], where: CandidateFilter
    ) -> dict[str, IndexedText]:
        """Text, speaker, position and time of the chunks ``where`` admits (for the ranker)."""
        ...

    async def drop(self, org_id: str) -> None: ...
