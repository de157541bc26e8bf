"""Imports as the surfaces offer them: started, watched, paused, resumed and cancelled by a caller.

Why a layer over ``ImportService``: a surface (HTTP, CLI, MCP) answers at
once while the import goes on, so each import runs in the background as one
asyncio task stepping ``ImportService.run`` batch by batch (re-authorizing
its stored authority before each). This is also where the caller's request
meets the rules of a surface: a path import needs the policy's approval
(``authorize_path_import``) and a path inside the caller's organisation's
import area (``ImportArea``); an upload is imported only by its uploader and
its folder is removed when its import ends (or kept ``keep_uploads``, then
swept); a caller sees only their own imports (anything else is
``not_found``); and every start, resume, pause and cancel leaves an audit
receipt with ids, counts and a hash of the path, never text.

Uploads never outlive their import for long, crash or not: a sweep at start
and every hour removes the folders of imports that ended more than
``keep_uploads`` ago, of imports abandoned unfinished for ``ABANDONED_AFTER``
(the import then fails ``upload_removed``), and folders no import names
(a crash between saving an upload and recording its import).

A task stops only between batches (``stop`` is asked before each), so
shutting down never abandons a write half done; the import is saved
``paused`` and ``resume`` continues it from its checkpoint.
"""

import asyncio
import contextlib
import hashlib
import logging
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import msgspec

from application.imports.authority import JobAuthorizer
from application.imports.import_area import ImportArea
from application.imports.import_ports import ImportStore
from application.imports.import_service import DEFAULT_BATCH, ImportService
from application.imports.jobs import ENDED, FINISHED, ImportJob, ImportStatus, JobAuthority
from application.imports.ports import SourceAdapter
from application.imports.views import ImportView, view_of
from application.memory.service import MemoryService
from application.ports import Clock, IdGenerator
from application.trust.access import AccessResolver
from application.trust.audit import AuditTrail
from application.trust.ports import ControlStore
from domain.errors import InvalidInputError, NotFoundError, PolicyDeniedError
from domain.policy import MemoryPolicyContext, authorize_path_import
from domain.reasons import ReasonCode
from domain.scopes import MemoryScope

__all__ = ["ABANDONED_AFTER", "SWEEP_EVERY_S", "ImportJobs", "ImportSetup"]

_log = logging.getLogger("tessera.imports")

#: an upload whose import has not moved this long is removed (its import fails)
ABANDONED_AFTER = timedelta(days=7)
#: a folder no import names is left alone this long (its upload may still be arriving)
_ORPHAN_GRACE = timedelta(hours=1)
#: how often a running service sweeps the upload folders
SWEEP_EVERY_S = 3600.0


@dataclass(frozen=True)
class ImportSetup:
    """What the composition root chooses for imports: where records live, formats, the area."""

    store: ImportStore
    adapters: Mapping[str, SourceAdapter]
    #: the import root: each organisation's area and uploads lie under it
    root: Path
    max_upload_bytes: int
    batch_size: int = DEFAULT_BATCH
    #: the CLI in its own process: path imports may also read any path its user can
    anywhere: bool = False
    #: folders the operator let an organisation (by id) import from by path
    granted: Mapping[str, Sequence[Path]] = field(default_factory=dict)
    #: (organisation id, principal id) the operator let import by path besides owners
    path_principals: Collection[tuple[str, str]] = frozenset()
    #: how long an upload stays after its import ended (0: removed at once)
    keep_uploads: timedelta = timedelta(0)


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ImportJobs:
    def __init__(
        self,
        setup: ImportSetup,
        *,
        memory: MemoryService,
        control: ControlStore,
        access: AccessResolver,
        audit: AuditTrail,
        ids: IdGenerator,
        clock: Clock,
    ) -> None:
        self.area = ImportArea(setup.root, setup.granted, anywhere=setup.anywhere)
        self.max_upload_bytes = setup.max_upload_bytes
        self._approved = frozenset(setup.path_principals)
        self._keep = setup.keep_uploads
        self._control = control
        self._clock = clock
        self._sweeper: asyncio.Task[None] | None = None
        self.adapters = sorted(setup.adapters)
        self._audit = audit
        self._store = setup.store
        self._service = ImportService(
            memory=memory,
            store=setup.store,
            contexts=JobAuthorizer(control, access),
            adapters=setup.adapters,
            ids=ids,
            clock=clock,
            batch_size=setup.batch_size,
        )
        self._tasks: dict[tuple[str, str], tuple[asyncio.Task[None], asyncio.Event]] = {}
        self._closing = False
        self._lane = memory.lane

    # --- uploads ------------------------------------------------------------

    def upload_dir(self, ctx: MemoryPolicyContext, upload_id: str) -> Path:
        """A fresh folder in the caller's own uploads for one uploaded archive."""
        if ctx.actor is None:
            raise PolicyDeniedError(ReasonCode.MISSING_ACTOR, "an upload needs a principal")
        return self.area.new_upload(ctx.org_id, ctx.actor.principal_id, upload_id)

    def discard_upload(self, folder: Path) -> None:
        """Remove an upload whose import was never started (refused, or its request failed)."""
        self.area.remove(folder)

    # --- use cases -----------------------------------------------------------

    async def start(
        self,
        ctx: MemoryPolicyContext,
        *,
        key_id: str | None,
        adapter: str,
        path: str,
        scope: MemoryScope = MemoryScope.PRIVATE,
        scope_key: str | None = None,
    ) -> ImportView:
        """Import a path of the caller's organisation's area (the policy approves the caller
        first); the target is checked by the policy now and it runs in the background."""
        self._known(adapter)
        self._may_import_paths(ctx, "import.start", scope, scope_key)
        resolved = self.area.resolve(ctx.org_id, path)
        return await self._begin(ctx, key_id, adapter, resolved, None, scope, scope_key)

    async def start_upload(
        self,
        ctx: MemoryPolicyContext,
        *,
        key_id: str | None,
        adapter: str,
        archive: Path,
        scope: MemoryScope = MemoryScope.PRIVATE,
        scope_key: str | None = None,
    ) -> ImportView:
        """Import an archive the caller uploaded (saved in ``upload_dir``); its folder is
        removed when the import ends, or now when the import is refused."""
        mine = ctx.actor.principal_id if ctx.actor is not None else ""
        found = self.area.upload_of(ctx.org_id, mine, archive)
        if found is None:
            raise InvalidInputError(
                ReasonCode.PATH_OUTSIDE_IMPORT_ROOT, "only your own uploads are imported this way"
            )
        folder, resolved = found
        try:
            self._known(adapter)
        except InvalidInputError:
            self.area.remove(folder)
            raise
        return await self._begin(ctx, key_id, adapter, resolved, folder, scope, scope_key)

    def _may_import_paths(
        self, ctx: MemoryPolicyContext, action: str, scope: MemoryScope, scope_key: str | None
    ) -> None:
        """Refuse (audited) a caller the policy does not let import by path, now as at start."""
        reason = authorize_path_import(ctx, self._approved)
        if reason is ReasonCode.ALLOWED:
            return
        self._audit.note(ctx, action, reason=reason, scope=scope, scope_key=scope_key)
        raise PolicyDeniedError(
            reason,
            "importing by path needs the organisation's owner or a principal the operator "
            "approved (TESSERA_IMPORT_PATH_PRINCIPALS); upload the archive instead",
        )

    def _known(self, adapter: str) -> None:
        if adapter not in self.adapters:
            raise InvalidInputError(
                ReasonCode.UNKNOWN_ADAPTER, f"adapter must be one of {', '.join(self.adapters)}"
            )

    async def _begin(
        self,
        ctx: MemoryPolicyContext,
        key_id: str | None,
        adapter: str,
        resolved: Path,
        upload: Path | None,
        scope: MemoryScope,
        scope_key: str | None,
    ) -> ImportView:
        if ctx.actor is None:
            raise PolicyDeniedError(ReasonCode.MISSING_ACTOR, "an import needs a principal")
        authority = JobAuthority(
            org_id=ctx.org_id, principal_id=ctx.actor.principal_id, key_id=key_id
        )
        hashes = {"path": _hash(str(resolved))}
        try:
            job = await self._service.create(
                adapter=adapter,
                path=resolved,
                authority=authority,
                scope=scope,
                scope_key=scope_key,
                upload=None if upload is None else str(upload),
            )
        except BaseException as exc:
            if upload is not None:
                self.area.remove(upload)  # an upload no import will ever read
            if isinstance(exc, PolicyDeniedError):
                self._audit.note(
                    ctx,
                    "import.start",
                    reason=exc.reason,
                    scope=scope,
                    scope_key=scope_key,
                    hashes=hashes,
                )
            raise
        self._audit.note(
            ctx,
            "import.start",
            scope=job.scope,
            scope_key=job.scope_key,
            ids=[job.import_id],
            hashes=hashes,
        )
        self._launch(job)
        return await self._present(job)

    async def get(self, ctx: MemoryPolicyContext, import_id: str) -> ImportView:
        return await self._present(await self._own(ctx, import_id))

    async def list_jobs(self, ctx: MemoryPolicyContext) -> list[ImportView]:
        """The caller's own imports, newest first."""
        mine = ctx.actor.principal_id if ctx.actor is not None else None
        jobs = await self._store.list_jobs(ctx.org_id)
        return [
            await self._present(job)
            for job in jobs
            if job.authority is not None and job.authority.principal_id == mine
        ]

    async def resume(self, ctx: MemoryPolicyContext, import_id: str) -> ImportView:
        """Run a paused, interrupted or failed import on from its checkpoint (idempotent)."""
        job = await self._own(ctx, import_id)
        if job.upload is None and job.status not in FINISHED:
            self._may_import_paths(ctx, "import.resume", job.scope, job.scope_key)
        self._note(ctx, "import.resume", job)
        gone = job.upload is not None and not self.area.kept(job.upload)
        if job.status not in FINISHED and gone:
            raise NotFoundError(
                ReasonCode.UPLOAD_REMOVED,
                "the uploaded archive was removed when its import ended; upload it again "
                "(what was written stays, and a new import skips it as duplicates)",
            )
        if job.status not in FINISHED:
            self._launch(job)
        return await self._present(job)

    async def pause(self, ctx: MemoryPolicyContext, import_id: str) -> ImportView:
        """Stop the import after the batch in hand; ``resume`` continues it."""
        job = await self._own(ctx, import_id)
        self._note(ctx, "import.pause", job)
        await self._halt(job)
        return await self._present(await self._service.get(job.org_id, job.import_id))

    async def cancel(self, ctx: MemoryPolicyContext, import_id: str) -> ImportView:
        """Stop the import for good; what it wrote stays remembered."""
        job = await self._own(ctx, import_id)
        self._note(ctx, "import.cancel", job)
        await self._halt(job)  # first, so its last save cannot overwrite the cancel
        cancelled = await self._service.cancel(job.org_id, job.import_id)
        self._ended(cancelled)
        return await self._present(cancelled)

    async def open(self) -> None:
        """Sweep the upload folders now and every ``SWEEP_EVERY_S`` while the service runs."""
        await self.sweep()
        if self._sweeper is None and not self._closing:
            self._sweeper = asyncio.get_running_loop().create_task(self._sweep_every())

    async def sweep(self) -> int:
        """Remove uploads whose import ended past ``keep_uploads``, was abandoned, or is
        unknown (after ``_ORPHAN_GRACE``); how many were removed."""
        now = self._clock.now()
        jobs: dict[str, ImportJob] = {}
        for org in await self._control.list_organizations():
            for job in await self._store.list_jobs(org.org_id):
                if job.upload is not None:
                    jobs[job.upload] = job
        removed = 0
        folders = await asyncio.to_thread(lambda: list(self.area.upload_folders()))
        for found in folders:
            owner = jobs.get(str(found.path))
            if owner is None:
                if now.timestamp() - found.modified < _ORPHAN_GRACE.total_seconds():
                    continue
            elif (owner.org_id, owner.import_id) in self._tasks:
                continue
            elif owner.status in ENDED:
                if owner.updated_at + self._keep > now:
                    continue
            elif owner.updated_at + ABANDONED_AFTER > now:
                continue
            else:
                await self._service.abandon(owner.org_id, owner.import_id)
            self.area.remove(found.path)
            removed += 1
        return removed

    async def _sweep_every(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_EVERY_S)
            try:
                await self.sweep()
            except Exception as exc:  # a store hiccup: the next sweep tries again
                _log.warning("sweeping the upload folders failed: %s", type(exc).__name__)

    async def close(self) -> None:
        """Stop every running import between batches; each is saved ``paused``."""
        self._closing = True
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sweeper
        running = list(self._tasks.values())
        for _, stop in running:
            stop.set()
        await asyncio.gather(*(task for task, _ in running), return_exceptions=True)

    # --- inside --------------------------------------------------------------

    async def _own(self, ctx: MemoryPolicyContext, import_id: str) -> ImportJob:
        job = await self._service.get(ctx.org_id, import_id)
        mine = ctx.actor.principal_id if ctx.actor is not None else None
        if job.authority is None or job.authority.principal_id != mine:
            raise NotFoundError(ReasonCode.NOT_FOUND, f"import {import_id} does not exist")
        return job

    def _note(self, ctx: MemoryPolicyContext, action: str, job: ImportJob) -> None:
        self._audit.note(
            ctx,
            action,
            scope=job.scope,
            scope_key=job.scope_key,
            ids=[job.import_id],
            counts={"read": job.counters.read, "written": job.counters.written},
        )

    async def _present(self, job: ImportJob) -> ImportView:
        """The record, with the status this process knows: a task running, or none any more;
        and its chunks still waiting for vectors now: this process's live count for an
        import it ran, else the store's durable queue (another process, or a restart)."""
        if self._lane.knows(job.import_id):
            pending: int | None = self._lane.outstanding(job.import_id)
        else:
            space = f"{job.scope}/{job.scope_key or ''}"
            pending = await self._store.embedding_pending(job.org_id, space, job.import_id)
        if pending is not None and pending != job.counters.embedding_pending:
            counters = msgspec.structs.replace(job.counters, embedding_pending=pending)
            job = msgspec.structs.replace(job, counters=counters)
        active = (job.org_id, job.import_id) in self._tasks
        if active and job.status not in FINISHED and job.status is not ImportStatus.RUNNING:
            return view_of(job, ImportStatus.RUNNING)
        if not active and job.status is ImportStatus.RUNNING:
            # the task may have finished (and saved its end) while this record was read:
            # its own last save decides, and only a record still running was cut off
            latest = await self._service.get(job.org_id, job.import_id)
            if latest.status is not ImportStatus.RUNNING:
                counters = msgspec.structs.replace(
                    latest.counters, embedding_pending=job.counters.embedding_pending
                )
                return view_of(msgspec.structs.replace(latest, counters=counters))
            return view_of(job, ImportStatus.PAUSED)  # its process stopped mid-way
        return view_of(job)

    def _launch(self, job: ImportJob) -> None:
        key = (job.org_id, job.import_id)
        if key in self._tasks or self._closing:
            return
        stop = asyncio.Event()
        task = asyncio.get_running_loop().create_task(self._drive(key, stop))
        self._tasks[key] = (task, stop)

    async def _drive(self, key: tuple[str, str], stop: asyncio.Event) -> None:
        try:
            job = await self._service.run(*key, stop=stop.is_set)
        except Exception as exc:  # logged by type: a message might quote archive text
            _log.error("import %s stopped by %s", key[1], type(exc).__name__)
        else:
            self._ended(job)
        finally:
            self._tasks.pop(key, None)

    def _ended(self, job: ImportJob) -> None:
        """An ended import's upload goes now, unless uploads are kept (the sweep takes it)."""
        if job.upload is not None and job.status in ENDED and not self._keep:
            self.area.remove(Path(job.upload))

    async def _halt(self, job: ImportJob) -> None:
        entry = self._tasks.get((job.org_id, job.import_id))
        if entry is not None:
            task, stop = entry
            stop.set()
            await asyncio.wait([task])
