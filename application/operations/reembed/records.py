"""What a re-embed persists and reports: per organisation, its job; per store, its status.

Why the job lives in the store, beside the vectors it stages: a process that
stops mid-run (a deploy, a crash) finds on its next start how far each
organisation got, and resumes from there without embedding a chunk twice.
"""

from datetime import datetime
from enum import StrEnum

import msgspec

from application.ports.records import EmbeddingSpace

__all__ = ["ReembedJob", "ReembedState", "ReembedStatus", "StagingChunk", "StagingPage"]


class ReembedState(StrEnum):
    #: no re-embed has run in this store (or the last one finished before this process)
    IDLE = "idle"
    #: building vectors of the new model beside the old ones; search serves the old
    RUNNING = "running"
    #: every chunk has its new vector: flipping each organisation to the new model
    SWITCHING = "switching"
    #: switched: the new model serves search, the old vectors and snapshot are gone
    DONE = "done"
    #: stopped on a failure (the embedder, the store); run it again to resume
    FAILED = "failed"


class ReembedJob(msgspec.Struct, frozen=True, kw_only=True):
    """One organisation's progress towards ``target`` (kept in its namespace)."""

    #: the name the operator gave (``tessera reembed --embedder NAME``)
    embedder: str
    target: EmbeddingSpace
    #: the last chunk id read (chunk-id order); None: from the start
    after: str | None = None
    #: chunks given a vector of the target model so far (counted once each)
    staged: int = 0
    started_at: datetime
    #: seconds spent building, summed over resumes (the rate's denominator)
    seconds: float = 0.0

    def __post_init__(self) -> None:
        if not self.embedder:
            raise ValueError("embedder must not be empty")
        if self.staged < 0 or self.seconds < 0:
            raise ValueError("progress cannot be negative")


class StagingChunk(msgspec.Struct, frozen=True, kw_only=True):
    """A chunk still without a vector of the target model (its text stays in process)."""

    chunk_id: str
    text: str
    content_hash: str


class StagingPage(msgspec.Struct, frozen=True, kw_only=True):
    """One page of a scan in chunk-id order: the chunks lacking a staged vector in it."""

    chunks: list[StagingChunk]
    #: the last chunk id the page read; None once the scan has passed the last chunk
    last: str | None


class ReembedStatus(msgspec.Struct, frozen=True, kw_only=True):
    """Where the store's re-embed stands: what ``--status`` and the admin route show."""

    state: ReembedState = ReembedState.IDLE
    #: the embedder name and model being built (or last built)
    embedder: str | None = None
    target_model: str | None = None
    target_dimension: int | None = None
    #: the model search serves now
    serving_model: str
    #: chunks with a vector of the target model, and chunks in all (every organisation)
    done: int = 0
    total: int = 0
    #: chunks per second over the time spent building; None before the first batch
    rate: float | None = None
    #: seconds left at that rate; None when unknown
    eta_seconds: float | None = None
    organizations: int = 0
    #: the reason code of the failure that stopped it (never text)
    error: str | None = None
    started_at: datetime | None = None
    finished_at: datetime | None = None
