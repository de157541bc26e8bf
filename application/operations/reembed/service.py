"""Re-embedding every chunk with another model, while search keeps serving the old one.

How: for each organisation, chunks are read in chunk-id order in bounded
pages; those without a vector of the target model are embedded and staged
beside the served vectors (``VectorStaging``), and the progress is saved
after each page. Search reads only the served vectors meanwhile. Once every
organisation is staged, each is caught up (chunks written during the run)
and switched in one store transaction, which refuses while any chunk still
lacks its new vector; then the process's embedder flips and each index is
dropped and rebuilt for the new model (its old snapshot goes with it).

Why the whole store at once and not one organisation: a process serves one
embedder (``TESSERA_EMBEDDER``); an organisation switched alone would be
queried with the wrong model until the process restarted.

Resuming: a page whose chunks were staged is never embedded again, because
the scan answers only chunks without a staged vector; a crash between the
staging and the saved progress costs a re-read, not an embed.
"""

import asyncio
import logging
import time
from collections.abc import Callable, Sequence

import msgspec

from application.enrichment.embedding import embed_texts
from application.enrichment.priority import BACKGROUND
from application.indexing.readiness import OrgReadiness
from application.operations.reembed.ports import VectorStaging
from application.operations.reembed.progress import Live, status_of, stored_status
from application.operations.reembed.records import (
    ReembedJob,
    ReembedState,
    ReembedStatus,
    StagingChunk,
)
from application.operations.reembed.switchable import SwitchableEmbedder
from application.ports import Clock, Embedder, IdGenerator, MemoryStore
from application.trust.audit import AuditTrail
from application.trust.ports import ControlStore
from application.trust.records import PrincipalRecord
from domain.errors import ConflictError, InvalidInputError, PolicyDeniedError, TesseraError
from domain.hashing import content_hash
from domain.policy import MemoryPolicyContext, Surface
from domain.reasons import ReasonCode

__all__ = ["BATCH_SIZE", "EmbedderCatalog", "Reembed"]

_log = logging.getLogger("tessera.reembed")

#: chunks read (and at most embedded) per page: one embedder call, one staged write
BATCH_SIZE = 64
#: catch-up-then-switch rounds before giving up while writes keep landing
SWITCH_ATTEMPTS = 5
#: share of the time the build may take: after a page that took t seconds it rests
#: t * (1 / DUTY - 1). Why: its staged writes take the embedded engine's one write turn
#: and reads wait for writers, so an unpaced build made searches ~5x slower at p95
#: (benchmarks/reembed.py, 2k chunks, no model); the rest is the requests' time
DUTY = 0.5

#: the embedders an operator may name: name -> a new embedder (raises KeyError if unknown)
EmbedderCatalog = Callable[[str], Embedder]


class Reembed:
    def __init__(
        self,
        *,
        store: MemoryStore,
        embedder: SwitchableEmbedder,
        readiness: OrgReadiness,
        control: ControlStore,
        audit: AuditTrail,
        clock: Clock,
        ids: IdGenerator,
        home_org_id: str,
        is_operator: Callable[[PrincipalRecord | None], bool],
        catalog: EmbedderCatalog | None = None,
        batch_size: int = BATCH_SIZE,
        duty: float = DUTY,
        timer: Callable[[], float] = time.perf_counter,
    ) -> None:
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        if not 0 < duty <= 1:
            raise ValueError("duty must be in (0, 1]")
        self._store = store
        self._embedder = embedder
        self._readiness = readiness
        self._control = control
        self._audit = audit
        self._clock = clock
        self._ids = ids
        self._home_org_id = home_org_id
        self._is_operator = is_operator
        self._catalog = catalog
        self._batch = batch_size
        #: the build's share of the time (see DUTY); a benchmark may change it
        self.duty = duty
        self._timer = timer
        self._live: Live | None = None
        self._task: asyncio.Task[None] | None = None

    # -- surfaces ----------------------------------------------------------------

    async def start(
        self, name: str, admin: PrincipalRecord | None, surface: Surface
    ) -> ReembedStatus:
        """Start (or resume) in the background; the status right after starting."""
        live = await self._begin(name, admin, surface)
        self._task = asyncio.get_running_loop().create_task(self._run_logged(live, admin, surface))
        return self._status_of(live)

    async def run(
        self, name: str, admin: PrincipalRecord | None, surface: Surface
    ) -> ReembedStatus:
        """Start (or resume) and wait for the end: a CLI that holds the store itself."""
        live = await self._begin(name, admin, surface)
        self._task = asyncio.get_running_loop().create_task(self._run_logged(live, admin, surface))
        await asyncio.shield(self._task)
        return self._status_of(live)

    async def wait(self) -> ReembedStatus | None:
        """Wait for a background run of this process to end (tests, shutdown)."""
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)
        return None if self._live is None else self._status_of(self._live)

    async def status(self, admin: PrincipalRecord | None) -> ReembedStatus:
        self._authorize(admin)
        if self._live is not None:
            return self._status_of(self._live)
        return await self._stored_status()

    def progress(self) -> ReembedStatus | None:
        """What this process is running or last ran, without a store read (``/api/status``)."""
        return None if self._live is None else self._status_of(self._live)

    async def close(self) -> None:
        """Stop a running build; its progress is already saved, the next run resumes it.

        A switch under way is finished instead: stopped between two organisations, the
        store would hold some on each model, and no configured embedder opens it all."""
        task, self._task = self._task, None
        if task is not None and not task.done():
            if self._live is None or self._live.state is not ReembedState.SWITCHING:
                task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    # -- checks ------------------------------------------------------------------

    def _authorize(self, admin: PrincipalRecord | None) -> None:
        if not self._is_operator(admin):
            raise PolicyDeniedError(
                ReasonCode.ADMIN_REQUIRED, "changing the embedding model needs the install's owner"
            )

    def _staging(self) -> VectorStaging:
        if not isinstance(self._store, VectorStaging):
            raise ConflictError(
                ReasonCode.INVALID_REQUEST, "this store cannot keep vectors of a second model"
            )
        return self._store

    def _build_target(self, name: str) -> Embedder:
        try:
            if self._catalog is None:
                raise KeyError(name)
            return self._catalog(name)
        except KeyError:
            raise InvalidInputError(
                ReasonCode.UNKNOWN_EMBEDDER, f"no embedder named {name[:60]!r} here"
            ) from None
        except ValueError as exc:  # a known kind this install cannot build (no API key)
            raise InvalidInputError(ReasonCode.UNKNOWN_EMBEDDER, str(exc)) from None

    async def _begin(self, name: str, admin: PrincipalRecord | None, surface: Surface) -> Live:
        self._authorize(admin)
        staging = self._staging()
        if self._task is not None and not self._task.done():
            raise ConflictError(ReasonCode.REEMBED_RUNNING, "a re-embed is already running")
        target = self._build_target(name)
        if target.space == self._embedder.space:
            raise ConflictError(
                ReasonCode.REEMBED_SAME_MODEL,
                f"the store already serves {target.space.model} ({target.space.dimension} dims)",
            )
        orgs = await self._orgs(staging)
        live = Live(
            state=ReembedState.RUNNING,
            embedder=name,
            target=target,
            orgs=orgs,
            staged={},
            totals={},
            started_at=self._clock.now(),
        )
        self._live = live
        self._note(admin, surface, "admin.reembed.start", live)
        return live

    async def _orgs(self, staging: VectorStaging) -> list[str]:
        """The organisations with memory in the store (never-used ones have no vectors)."""
        orgs: list[str] = []
        for org in await self._control.list_organizations():
            held = await staging.recorded_space(org.org_id)
            if held is not None:
                await self._store.prepare(org.org_id, held)  # the staging table's migration
                orgs.append(org.org_id)
        return orgs

    # -- the run -----------------------------------------------------------------

    async def _run_logged(
        self, live: Live, admin: PrincipalRecord | None, surface: Surface
    ) -> None:
        try:
            await self._run(live)
        except asyncio.CancelledError:
            live.state, live.error = ReembedState.FAILED, "interrupted"
            raise
        except TesseraError as exc:
            live.state, live.error = ReembedState.FAILED, str(exc.reason)
            _log.warning("re-embed towards %s stopped: %s", live.target.space.model, exc.reason)
        except Exception:  # a background task must report, never vanish with a trace
            live.state, live.error = ReembedState.FAILED, str(ReasonCode.INTERNAL_ERROR)
            _log.exception("re-embed towards %s failed", live.target.space.model)
        else:
            live.state = ReembedState.DONE
        finally:
            live.finished_at = self._clock.now()
            if live.state is not ReembedState.RUNNING:
                self._note(admin, surface, f"admin.reembed.{live.state}", live)

    async def _run(self, live: Live) -> None:
        for org_id in live.orgs:
            await self._build(live, org_id)
        live.state = ReembedState.SWITCHING
        await self._switch(live)

    async def _build(self, live: Live, org_id: str) -> None:
        staging = self._staging()
        space = live.target.space
        job = await staging.reembed_job(org_id)
        if job is None or job.target != space:
            if job is not None:
                await staging.discard_staged(org_id)  # another model's half-built vectors
            job = ReembedJob(embedder=live.embedder, target=space, started_at=self._clock.now())
            await staging.save_reembed_job(org_id, job)
        live.totals[org_id] = await self._store.count_chunks(org_id)
        live.staged[org_id] = await staging.staged_count(org_id, space.model)
        after = job.after
        while True:
            began = self._timer()
            page = await staging.unstaged_chunks(org_id, space.model, after, self._batch)
            staged = await self._stage(live, org_id, page.chunks)
            spent = self._timer() - began
            after = page.last or after
            job = msgspec.structs.replace(
                job, after=after, staged=job.staged + staged, seconds=job.seconds + spent
            )
            await staging.save_reembed_job(org_id, job)
            live.staged[org_id] = live.staged.get(org_id, 0) + staged
            live.staged_now += staged
            live.seconds += spent
            if page.last is None:
                return
            await asyncio.sleep(spent * (1 / self.duty - 1))  # requests go first meanwhile

    async def _stage(self, live: Live, org_id: str, chunks: Sequence[StagingChunk]) -> int:
        if not chunks:
            return 0
        mark = BACKGROUND.set(True)  # an embedder that can runs it below requests
        try:
            texts = {c.content_hash: c.text for c in chunks}
            vectors = await embed_texts(self._store, live.target, org_id, texts)
        finally:
            BACKGROUND.reset(mark)
        by_chunk = {c.chunk_id: vectors[c.content_hash] for c in chunks}
        return await self._staging().stage_vectors(org_id, live.target.space, by_chunk)

    async def _catch_up(self, live: Live, org_id: str) -> None:
        """Stage what was written during the build (anywhere in chunk-id order)."""
        staging = self._staging()
        live.totals[org_id] = await self._store.count_chunks(org_id)
        after: str | None = None
        while True:
            page = await staging.unstaged_chunks(org_id, live.target.space.model, after, 1_000)
            for start in range(0, len(page.chunks), self._batch):
                staged = await self._stage(live, org_id, page.chunks[start : start + self._batch])
                live.staged[org_id] = live.staged.get(org_id, 0) + staged
                live.staged_now += staged
            if page.last is None:
                return
            after = page.last

    async def _switch(self, live: Live) -> None:
        staging = self._staging()
        space = live.target.space
        for attempt in range(1, SWITCH_ATTEMPTS + 1):
            live.orgs = await self._orgs(staging)  # one first used during the run too
            for org_id in live.orgs:
                await self._catch_up(live, org_id)
            try:
                for org_id in live.orgs:
                    await staging.switch_space(org_id, space)
            except ConflictError as exc:
                if exc.reason is not ReasonCode.REEMBED_INCOMPLETE or attempt == SWITCH_ATTEMPTS:
                    raise
                continue
            break
        target = live.target
        await self._readiness.switch(live.orgs, lambda: self._embedder.switch_to(target))
        for org_id in live.orgs:
            await staging.save_reembed_job(org_id, None)
            live.totals[org_id] = live.staged[org_id] = await self._store.count_chunks(org_id)
            await self._readiness.ensure(org_id)  # the new model's index, rebuilt now
        _log.info("re-embed done: %d organisations now serve %s", len(live.orgs), space.model)

    # -- reporting -----------------------------------------------------------------

    def _status_of(self, live: Live) -> ReembedStatus:
        return status_of(live, self._embedder.space.model)

    async def _stored_status(self) -> ReembedStatus:
        orgs = [org.org_id for org in await self._control.list_organizations()]
        return await stored_status(
            self._staging(), self._store, orgs, self._embedder.space.model
        )

    def _note(
        self, admin: PrincipalRecord | None, surface: Surface, action: str, live: Live
    ) -> None:
        ctx = MemoryPolicyContext(
            org_id=self._home_org_id,
            actor=None,
            surface=surface,
            now=self._clock.now(),
            audit_id=self._ids.new_id(),
        )
        counts = {
            "organizations": len(live.orgs),
            "chunks": sum(live.staged.values()),
            "dimension": live.target.space.dimension,
        }
        # the model's name is configuration, not memory; a hash keeps receipts text-free
        self._audit.note(
            ctx,
            action,
            ids=[admin.principal_id] if admin is not None else [],
            counts=counts,
            hashes={"model": content_hash(live.target.space.model)},
        )
