"""Importing an archive: read an adapter, dedupe, write through ``remember``, record progress.

Why this shape: an import is long and may stop anywhere (Ctrl-C, a crash, a
revoked key). So it works in batches: before each batch it re-authorizes
the job's stored authority (failing closed), then writes each new record
through the same ``remember`` every caller uses, adds its dedupe key to the
ledger of the target space, and after the batch saves the checkpoint and
counters. A resume starts after the saved checkpoint.

Exactly once across a crash: each imported source carries its ``import_id``
and ``import_key`` (the dedupe key) in its metadata, committed with the
source itself. A crash can lose the ledger entry and the counts of records
written after the last checkpoint, never the source; so a run that resumes
first asks the store which sources this import wrote since that checkpoint
(``ImportStore.written_since``) and counts those records, when it reads
them again, as written (not again, and not as duplicates).

Writes go through ``MemoryService.remember_many``: the new records of a
batch are saved in one store transaction (each request still checked and
authorised on its own), searchable by their words at once; their vectors
come from the embedding lane, whose backlog slows the import (backpressure)
and whose outstanding chunks of this import are ``embedding_pending``.
"""

import asyncio
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import msgspec

from application.imports.import_ports import ImportStore
from application.imports.jobs import (
    FINISHED,
    MAX_LISTED_PROBLEMS,
    ImportCounters,
    ImportJob,
    ImportProblem,
    ImportStatus,
    ImportWarning,
    JobAuthority,
)
from application.imports.mapping import remember_request
from application.imports.ports import SourceAdapter
from application.imports.records import ImportRecord, ReadItem
from application.memory.commands import RememberRequest
from application.memory.limits import MAX_METADATA_KEYS
from application.memory.service import MemoryService
from application.ports import Clock, IdGenerator
from application.trust.guard import denied, require_org, write_target
from domain.errors import InvalidInputError, NotFoundError, PolicyDeniedError, TesseraError
from domain.models import MetadataValue
from domain.policy import MemoryPolicyContext, authorize_write
from domain.reasons import ReasonCode
from domain.scopes import MemoryScope

__all__ = ["DEFAULT_BATCH", "ImportService", "JobContexts"]

DEFAULT_BATCH = 50


class JobContexts(Protocol):
    """Turns a job's stored authority into a policy context now (see ``JobAuthorizer``)."""

    async def context(self, authority: JobAuthority | None) -> MemoryPolicyContext: ...


@dataclass
class _Run:
    """The mutable tally of one run, folded back into the frozen job after each batch."""

    counters: dict[str, int]
    problems: list[ImportProblem]
    #: keys this import wrote after its last checkpoint, found in the store on resume
    replayed: set[str]

    def problem(self, record_id: str, reason: str, detail: str) -> None:
        if len(self.problems) < MAX_LISTED_PROBLEMS:
            self.problems.append(ImportProblem(record_id=record_id, reason=reason, detail=detail))


def _tagged(request: RememberRequest, import_id: str, key: str) -> RememberRequest:
    """The request with the import's id and the record's dedupe key first in its metadata."""
    rest = [(k, v) for k, v in request.metadata.items() if k not in ("import_id", "import_key")]
    metadata: dict[str, MetadataValue] = {"import_id": import_id, "import_key": key}
    metadata.update(rest[: MAX_METADATA_KEYS - len(metadata)])
    return msgspec.structs.replace(request, metadata=metadata)


def _take(items: Iterator[ReadItem], n: int) -> list[ReadItem]:
    batch: list[ReadItem] = []
    for item in items:
        batch.append(item)
        if len(batch) >= n:
            break
    return batch


class ImportService:
    def __init__(
        self,
        *,
        memory: MemoryService,
        store: ImportStore,
        contexts: JobContexts,
        adapters: Mapping[str, SourceAdapter],
        ids: IdGenerator,
        clock: Clock,
        batch_size: int = DEFAULT_BATCH,
    ) -> None:
        self._memory = memory
        self._store = store
        self._contexts = contexts
        self._adapters = adapters
        self._ids = ids
        self._clock = clock
        self._batch = batch_size

    def _adapter(self, name: str) -> SourceAdapter:
        adapter = self._adapters.get(name)
        if adapter is None:
            raise InvalidInputError(
                ReasonCode.UNKNOWN_ADAPTER,
                f"adapter must be one of {', '.join(sorted(self._adapters))}",
            )
        return adapter

    async def create(
        self,
        *,
        adapter: str,
        path: Path,
        authority: JobAuthority | None,
        scope: MemoryScope = MemoryScope.PRIVATE,
        scope_key: str | None = None,
        upload: str | None = None,
    ) -> ImportJob:
        """A pending import into the target the job's authority may write (checked now).

        ``upload``: the folder of an uploaded archive, removed when the import ends.
        """
        # the archive's start is looked at now: a compression or container the adapter
        # cannot read is refused here (unsupported_archive), not found empty later
        await asyncio.to_thread(self._adapter(adapter).check, path)
        ctx = await self._contexts.context(authority)
        assert authority is not None  # contexts() fails closed without one
        require_org(ctx, authority.org_id)
        target = write_target(ctx, scope, scope_key)
        decision = authorize_write(ctx, target)
        if not decision.allowed:
            raise denied(decision, "importing")
        now = self._clock.now()
        job = ImportJob(
            import_id=self._ids.new_id(),
            org_id=authority.org_id,
            adapter=adapter,
            path=str(path),
            upload=upload,
            scope=target.scope,
            scope_key=target.scope_key,
            authority=authority,
            created_at=now,
            updated_at=now,
        )
        await self._store.save_job(job)
        return job

    async def get(self, org_id: str, import_id: str) -> ImportJob:
        job = await self._store.get_job(org_id, import_id)
        if job is None:
            raise NotFoundError(ReasonCode.NOT_FOUND, f"import {import_id} does not exist")
        return job

    async def cancel(self, org_id: str, import_id: str) -> ImportJob:
        job = await self.get(org_id, import_id)
        if job.status in FINISHED:
            return job
        job = msgspec.structs.replace(
            job, status=ImportStatus.CANCELLED, updated_at=self._clock.now()
        )
        await self._store.save_job(job)
        return job

    async def abandon(self, org_id: str, import_id: str) -> ImportJob:
        """Fail an unfinished import whose upload was removed as abandoned."""
        job = await self.get(org_id, import_id)
        if job.status in FINISHED:
            return job
        job = msgspec.structs.replace(
            job,
            status=ImportStatus.FAILED,
            error=ReasonCode.UPLOAD_REMOVED,
            updated_at=self._clock.now(),
        )
        await self._store.save_job(job)
        return job

    async def run(
        self,
        org_id: str,
        import_id: str,
        progress: Callable[[ImportJob], None] | None = None,
        max_batches: int | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> ImportJob:
        """Run (or resume) the import from its checkpoint until done, failed or interrupted.

        With ``max_batches`` it stops ``paused`` after that many batches, so a
        caller (an HTTP request, a CLI drawing progress) can advance it in steps.
        ``stop`` is asked before each batch: when it answers True the import
        stops ``paused`` between batches (a background runner shutting down),
        never in the middle of a write.
        """
        job = await self.get(org_id, import_id)
        if job.status in FINISHED:
            return job
        items = self._adapter(job.adapter).read(Path(job.path), after=job.checkpoint)
        space = f"{job.scope}/{job.scope_key or ''}"
        resuming = job.status is not ImportStatus.PENDING or job.checkpoint is not None
        replayed = (
            await self._store.written_since(job.org_id, space, job.import_id, job.updated_at)
            if resuming
            else []
        )
        tally = _Run(
            counters=msgspec.structs.asdict(job.counters),
            problems=list(job.problems),
            replayed=set(replayed),
        )
        job = await self._save(job, tally, status=ImportStatus.RUNNING, error=None)
        batches = 0
        # the next batch is read (in a thread) while this one is written: parsing and
        # writing overlap instead of adding up; a read ahead that is never written is
        # simply dropped (the checkpoint only moves past what was written)
        ahead: asyncio.Future[list[ReadItem]] | None = None
        try:
            while (max_batches is None or batches < max_batches) and not (stop and stop()):
                batches += 1
                batch = await (ahead or asyncio.to_thread(_take, items, self._batch))
                ahead = None
                if not batch:
                    break
                if max_batches is None or batches < max_batches:
                    ahead = asyncio.ensure_future(asyncio.to_thread(_take, items, self._batch))
                current = await self._store.get_job(job.org_id, job.import_id)
                if current is not None and current.status is ImportStatus.CANCELLED:
                    return current  # cancelled from elsewhere: stop before writing more
                try:
                    ctx = await self._contexts.context(job.authority)
                except PolicyDeniedError as exc:
                    return await self._save(job, tally, ImportStatus.FAILED, error=exc.reason)
                await self._write(job, ctx, space, batch, tally)
                job = await self._save(job, tally, checkpoint=batch[-1].checkpoint)
                if progress is not None:
                    progress(job)
            else:
                return await self._save(job, tally, ImportStatus.PAUSED)
        except asyncio.CancelledError:
            await asyncio.shield(self._save(job, tally, ImportStatus.PAUSED))
            raise
        except TesseraError as exc:  # the archive became unreadable mid-way
            return await self._save(job, tally, ImportStatus.FAILED, error=exc.reason)
        finally:
            if ahead is not None:
                ahead.cancel()  # its thread finishes alone; nothing waits for what it read
        warning = None
        if tally.counters["read"] == 0:
            warning = ImportWarning(
                reason=ReasonCode.NO_RECORDS_READ,
                detail=f"the archive held no record the {job.adapter} adapter reads: check "
                "its format (the adapter) and that it is not empty",
            )
        return await self._save(job, tally, ImportStatus.COMPLETED, warning=warning)

    async def _write(
        self,
        job: ImportJob,
        ctx: MemoryPolicyContext,
        space: str,
        batch: list[ReadItem],
        tally: _Run,
    ) -> None:
        """One batch: new records written together (one store transaction), then their keys."""
        records = [item for item in batch if isinstance(item, ImportRecord)]
        known = await self._store.known_keys(job.org_id, space, [r.dedupe_key for r in records])
        counters = tally.counters
        fresh: list[ImportRecord] = []
        for item in batch:
            counters["read"] += 1
            if not isinstance(item, ImportRecord):
                counters["skipped"] += 1
                tally.problem(item.record_id, item.reason, item.detail)
                continue
            if item.dedupe_key in tally.replayed:  # written before a crash, not counted yet
                tally.replayed.discard(item.dedupe_key)
                await self._store.add_keys(job.org_id, space, [item.dedupe_key])
                known.add(item.dedupe_key)
                counters["written"] += 1
                continue
            if item.dedupe_key in known:
                counters["duplicates"] += 1
                continue
            known.add(item.dedupe_key)  # a second copy later in this batch is a duplicate
            fresh.append(item)
        if not fresh:
            return
        requests = [
            _tagged(
                remember_request(item, org_id=job.org_id, scope=job.scope, scope_key=job.scope_key),
                job.import_id,
                item.dedupe_key,
            )
            for item in fresh
        ]
        results = await self._memory.remember_many(job.org_id, requests, ctx, tag=job.import_id)
        written: list[str] = []
        for item, result in zip(fresh, results, strict=True):
            if isinstance(result, InvalidInputError | PolicyDeniedError):
                counters["failed"] += 1
                tally.problem(item.record_id, result.reason, result.detail)
                continue
            written.append(item.dedupe_key)
            counters["written"] += 1
        await self._store.add_keys(job.org_id, space, written)

    async def _save(
        self,
        job: ImportJob,
        tally: _Run,
        status: ImportStatus | None = None,
        error: ReasonCode | None = None,
        checkpoint: str | None = None,
        warning: ImportWarning | None = None,
    ) -> ImportJob:
        # this process's count: chunks this import queued whose vectors are not made yet
        tally.counters["embedding_pending"] = self._memory.lane.outstanding(job.import_id)
        job = msgspec.structs.replace(
            job,
            status=status or job.status,
            counters=ImportCounters(**tally.counters),
            problems=list(tally.problems),
            checkpoint=checkpoint or job.checkpoint,
            error=error if status is not None else job.error,
            warning=warning if status is not None else job.warning,
            updated_at=self._clock.now(),
        )
        await self._store.save_job(job)
        return job
