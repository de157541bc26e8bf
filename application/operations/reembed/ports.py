"""The store's capability a re-embed needs: vectors of a second model beside the first.

Why a port of its own (not more MemoryStore methods): only the re-embed uses
it, and a store without it simply cannot change models in place (the use
case then refuses to start). The reference store and the SurrealDB store
both have it; ``contracts/vector_staging.py`` holds them to the same rules.
"""

from collections.abc import Mapping
from typing import Protocol, runtime_checkable

from application.operations.reembed.records import ReembedJob, StagingPage
from application.ports.records import EmbeddingSpace, Vector

__all__ = ["VectorStaging"]


@runtime_checkable
class VectorStaging(Protocol):
    async def recorded_space(self, org_id: str) -> EmbeddingSpace | None:
        """The space whose vectors the organisation serves; None if it was never prepared."""
        ...

    async def reembed_job(self, org_id: str) -> ReembedJob | None:
        """The organisation's re-embed progress, if one was started and not finished."""
        ...

    async def save_reembed_job(self, org_id: str, job: ReembedJob | None) -> None:
        """Record the progress (None: forget it). Ignored for an unprepared organisation."""
        ...

    async def unstaged_chunks(
        self, org_id: str, model: str, after: str | None, limit: int
    ) -> StagingPage:
        """Read up to ``limit`` chunks in chunk-id order strictly after ``after`` and answer
        those without a staged vector of ``model``, and the last id read (None at the end)."""
        ...

    async def stage_vectors(
        self, org_id: str, space: EmbeddingSpace, vectors: Mapping[str, Vector]
    ) -> int:
        """Keep vectors of ``space`` beside the served ones, by chunk id; a chunk deleted
        meanwhile is skipped. How many were staged. Search never reads them.

        Raises ConflictError(embedder_mismatch) for a vector of another dimension.
        """
        ...

    async def staged_count(self, org_id: str, model: str) -> int:
        """Chunks that have a staged vector of ``model``."""
        ...

    async def switch_space(self, org_id: str, space: EmbeddingSpace) -> int:
        """All or nothing: every chunk takes its staged vector of ``space`` (queued and
        dead-lettered chunks become indexed), the organisation records ``space``, the
        staged vectors and the cached embeddings of other models are dropped. How many
        chunks switched; 0 for an organisation already on ``space`` or never prepared.

        Raises ConflictError(reembed_incomplete), changing nothing, while a chunk lacks a
        staged vector of ``space`` (a write landed after the last catch-up).
        """
        ...

    async def discard_staged(self, org_id: str) -> None:
        """Drop every staged vector (a re-embed towards another model starts over)."""
        ...
