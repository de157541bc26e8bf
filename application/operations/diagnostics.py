"""What an operator needs to see about a running install, without reading memory.

Counts per organisation (sources, chunks, whether its index is ready in this
process, its embedding queue: pending, dead-lettered, the lag of the oldest
pending chunk), the retrieval index and embedder in use, the store's size and
checkpoints, every registered queue's depth and lag (``application.ports.queue_state``:
the audit receipts always; other lanes register themselves), and the recent
warnings and errors (recorded by the entrypoint's logging, which never logs
memory text). Only the operator (the data directory's holder or the home
organisation's owner) may read it: it spans every organisation.
"""

from collections.abc import Sequence
from datetime import datetime

import msgspec

from application.indexing.status import IndexStatus, index_status
from application.memory.service import MemoryService
from application.operations.reembed.records import ReembedStatus
from application.ports import Clock, MemoryStore, RetrievalIndex
from application.ports.queue_state import QueueGauge, QueueState
from application.ports.writes import EmbeddingCounts
from application.trust.admin_base import AdminBase
from application.trust.audit import AuditTrail
from application.trust.ports import ControlStore
from application.trust.records import PrincipalRecord
from domain.errors import PolicyDeniedError, TesseraError
from domain.reasons import ReasonCode

__all__ = ["OrgStatus", "RecentError", "ServiceStatus", "StatusReporter", "StoreStatus"]


class OrgStatus(msgspec.Struct, frozen=True, kw_only=True):
    org_id: str
    name: str
    #: None when the organisation's store could not be counted (its reason is logged)
    chunks: int | None
    #: chunks waiting for their vectors, and dead-lettered (the embedding lane gave up)
    embedding_pending: int | None = None
    embedding_failed: int | None = None
    #: seconds the oldest pending chunk has waited (0 when none waits)
    embedding_lag_seconds: float | None = None
    sources: int | None = None
    #: its retrieval index is built and answering in this process (it is built on first use)
    index_ready: bool = False
    #: the index's kind, its snapshot on disk and how far the store is ahead of it
    index: IndexStatus | None = None


class RecentError(msgspec.Struct, frozen=True, kw_only=True):
    at: datetime
    level: str
    logger: str
    message: str


class StoreStatus(msgspec.Struct, frozen=True, kw_only=True):
    #: bytes of the data directory's files (None: not on this machine's disk, or mem://)
    data_bytes: int | None
    #: engine reopens that flushed the write-ahead log since this process started
    checkpoints: int
    written_since_checkpoint: int | None
    checkpoint_every: int | None


class ServiceStatus(msgspec.Struct, frozen=True, kw_only=True):
    engine: str
    store_url_kind: str
    retrieval_index: str
    embedder_model: str
    embedding_dimension: int
    organisations: list[OrgStatus]
    audit_pending: int
    recent_errors: list[RecentError]
    #: chunks queued in this process for the embedding lane
    embedding_queue_depth: int = 0
    store: StoreStatus | None = None
    queues: list[QueueState] = msgspec.field(default_factory=list)
    #: the re-embed this process runs or last ran (``tessera reembed``); None: none
    reembed: ReembedStatus | None = None


class StatusReporter:
    def __init__(
        self,
        *,
        store: MemoryStore,
        index: RetrievalIndex,
        memory: MemoryService,
        control: ControlStore,
        audit: AuditTrail,
        admin: AdminBase,
        clock: Clock | None = None,
    ) -> None:
        self._clock = clock
        self._store = store
        self._index = index
        self._memory = memory
        self._control = control
        self._audit = audit
        self._admin = admin
        self._queues: list[QueueGauge] = [audit]

    def watch_queue(self, gauge: QueueGauge) -> None:
        """Show this queue's depth and lag in the status (the hook a new lane registers)."""
        if gauge not in self._queues:
            self._queues.append(gauge)

    async def status(
        self, caller: PrincipalRecord | None, recent_errors: Sequence[RecentError]
    ) -> ServiceStatus:
        if not self._admin.is_operator(caller):
            raise PolicyDeniedError(
                ReasonCode.ADMIN_REQUIRED, "the service status is for the install's owner"
            )
        organisations = []
        for org in await self._control.list_organizations():
            try:
                chunks: int | None = await self._store.count_chunks(org.org_id)
                sources: int | None = await self._store.count_sources(org.org_id)
                queue: EmbeddingCounts | None = await self._store.embedding_counts(org.org_id)
            except TesseraError:
                chunks = sources = None
                queue = None
            organisations.append(
                OrgStatus(
                    org_id=org.org_id,
                    name=org.name,
                    chunks=chunks,
                    embedding_pending=None if queue is None else queue.pending,
                    embedding_failed=None if queue is None else queue.failed,
                    embedding_lag_seconds=self._lag(queue),
                    sources=sources,
                    index_ready=self._index.is_ready(org.org_id),
                    index=await index_status(self._store, self._index, org.org_id),
                )
            )
        info, space = self._memory.store_info(), self._memory.embedding_space
        return ServiceStatus(
            engine=info.engine,
            store_url_kind=info.url_kind,
            retrieval_index=self._memory.index_name,
            embedder_model=space.model,
            embedding_dimension=space.dimension,
            organisations=organisations,
            audit_pending=self._audit.pending,
            recent_errors=list(recent_errors),
            embedding_queue_depth=self._memory.lane.depth,
            store=StoreStatus(
                data_bytes=info.data_bytes,
                checkpoints=info.checkpoints,
                written_since_checkpoint=info.written_since_checkpoint,
                checkpoint_every=info.checkpoint_every,
            ),
            queues=[gauge.queue_state() for gauge in self._queues],
        )

    def _lag(self, queue: EmbeddingCounts | None) -> float | None:
        if queue is None or self._clock is None:
            return None
        if queue.oldest_pending_at is None:
            return 0.0
        return max((self._clock.now() - queue.oldest_pending_at).total_seconds(), 0.0)
