"""Imports as the surfaces offer them: started, watched, paused, resumed and cancelled by a caller.

Why a layer over ``ImportService``: a surface (HTTP, CLI, MCP) answers at
once while the import goes on, so each import runs in the background as one
asyncio task stepping ``ImportService.run`` batch by batch (re-authorizing
its stored authority before each). This is also where the caller's request
meets the rules of a surface: a path must lie under the import root
(symlinks resolved first), a caller sees only their own imports (anything
else is ``not_found``), and every start, resume, pause and cancel leaves an
audit receipt with ids, counts and a hash of the path, never text.

A task stops only between batches (``stop`` is asked before each), so
shutting down never abandons a write half done; the import is saved
``paused`` and ``resume`` continues it from its checkpoint.
"""

import asyncio
import hashlib
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import msgspec

from application.memory_service import MemoryService
from application.ports import Clock, IdGenerator
from application.sources.authority import JobAuthorizer
from application.sources.import_ports import ImportStore
from application.sources.import_service import DEFAULT_BATCH, ImportService
from application.sources.jobs import FINISHED, ImportJob, ImportStatus, JobAuthority
from application.sources.ports import SourceAdapter
from application.sources.views import ImportView, view_of
from application.trust.access import AccessResolver
from application.trust.audit import AuditTrail
from application.trust.ports import ControlStore
from domain.errors import (
    InvalidInputError,
    MalformedRequestError,
    NotFoundError,
    PolicyDeniedError,
)
from domain.policy import MemoryPolicyContext
from domain.reasons import ReasonCode
from domain.scopes import MemoryScope

__all__ = ["ImportJobs", "ImportSetup"]

_log = logging.getLogger("tessera.imports")


@dataclass(frozen=True)
class ImportSetup:
    """What the composition root chooses for imports: where records live, formats, the root."""

    store: ImportStore
    adapters: Mapping[str, SourceAdapter]
    #: paths must lie under it; None lets any path through (the CLI in its own process)
    root: Path | None
    max_upload_bytes: int
    batch_size: int = DEFAULT_BATCH


#: what POSIX file systems take (PATH_MAX, NAME_MAX), in bytes
_MAX_PATH_BYTES = 4096
_MAX_NAME_BYTES = 255


def _checked(raw: str) -> str:
    """``raw``, or ``invalid_path`` (400) for a path no file system takes."""
    encoded = raw.encode("utf-8", "surrogateescape")
    names = encoded.split(b"/")
    if (
        b"\x00" in encoded
        or len(encoded) > _MAX_PATH_BYTES
        or max(map(len, names)) > _MAX_NAME_BYTES
    ):
        raise MalformedRequestError(
            ReasonCode.INVALID_PATH,
            f"an import path holds no NUL byte, at most {_MAX_PATH_BYTES} bytes "
            f"and names of at most {_MAX_NAME_BYTES} bytes",
        )
    return raw


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
        self.root = None if setup.root is None else setup.root.resolve()
        self.max_upload_bytes = setup.max_upload_bytes
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

    # --- paths ---------------------------------------------------------------

    def resolve(self, raw: str) -> Path:
        """``raw`` with symlinks resolved, refused unless it lies under the import root.

        A relative path is taken relative to the root (or the working directory
        when there is none). The archive must exist now.
        """
        path = Path(_checked(raw)).expanduser()
        if not path.is_absolute() and self.root is not None:
            path = self.root / path
        resolved = path.resolve()
        if self.root is not None and not resolved.is_relative_to(self.root):
            raise InvalidInputError(
                ReasonCode.PATH_OUTSIDE_IMPORT_ROOT,
                f"imports read only paths under the import root {self.root}",
            )
        if not resolved.exists():
            raise NotFoundError(ReasonCode.NOT_FOUND, "there is no archive at that path")
        return resolved

    def upload_dir(self, upload_id: str) -> Path:
        """A fresh folder under the import root for one uploaded archive."""
        if self.root is None:
            raise InvalidInputError(
                ReasonCode.INVALID_REQUEST, "uploads need a configured import root"
            )
        folder = self.root / "uploads" / upload_id
        folder.mkdir(parents=True, mode=0o700)
        return folder

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
        """Create the import (its target checked by the policy now) and run it in the background."""
        if ctx.actor is None:
            raise PolicyDeniedError(ReasonCode.MISSING_ACTOR, "an import needs a principal")
        if adapter not in self.adapters:
            raise InvalidInputError(
                ReasonCode.UNKNOWN_ADAPTER, f"adapter must be one of {', '.join(self.adapters)}"
            )
        resolved = self.resolve(path)
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
            )
        except PolicyDeniedError as exc:
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
        self._note(ctx, "import.resume", job)
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
        return await self._present(await self._service.cancel(job.org_id, job.import_id))

    async def close(self) -> None:
        """Stop every running import between batches; each is saved ``paused``."""
        self._closing = True
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
            await self._service.run(*key, stop=stop.is_set)
        except Exception as exc:  # logged by type: a message might quote archive text
            _log.error("import %s stopped by %s", key[1], type(exc).__name__)
        finally:
            self._tasks.pop(key, None)

    async def _halt(self, job: ImportJob) -> None:
        entry = self._tasks.get((job.org_id, job.import_id))
        if entry is not None:
            task, stop = entry
            stop.set()
            await asyncio.wait([task])
