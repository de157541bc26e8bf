"""Reflection after writes and imports, in the background (TESSERA_REFLECT_ON_WRITE; off).

Why a lane and not a call in the write: reflecting reads the source again,
runs the extractor and writes candidates (and may auto-accept some), and a
write must not wait for any of it. So a write hands the new source ids here
(``offer`` never waits and never fails the write) and a worker reflects them
with the deterministic extractor, through the same ``Reflector.reflect`` as
``POST /api/memory/reflect``: the same policy, audit receipts and
auto-accept rule.

- Policy: a job keeps who wrote (organisation, principal), not a frozen
  context. The worker rebuilds that principal's context when it runs
  (surface ``job``), so a principal removed since does nothing
  (``job_policy_context_stale``) and one that lost a space since has those
  sources skipped by the read policy: it fails closed.
- Bounded: at most ``capacity`` jobs wait. When full, ``offer`` drops the
  job and remembers, per writer, the first source it dropped; once the
  queue drains, the worker lists the organisation's sources from there and
  reflects those of that writer (reflecting twice adds nothing: candidate
  ids are content-addressed). Work is "pending, will catch up", never a
  blocked write.
- Restarts: the queue lives in this process; jobs queued when it stops are
  lost (best effort). ``tessera reflect`` or ``POST /api/memory/reflect``
  with ``space`` reflects what a restart left out; doing it twice is safe.
- Writes first: the worker starts a job only once writes have paused for
  ``quiet_s`` (or it has waited ``max_defer_s``), so a burst of writes does
  not share the event loop with reflection; it catches up in the gaps.
- Progress (``queue_state``, in ``GET /api/status`` queues): depth, the
  oldest job's age, sources reflected, jobs failed and the last error's
  reason code (never text).
"""

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime

import msgspec

from application.ports import Clock, MemoryStore
from application.ports.queue_state import QueueState
from application.reflection.commands import ReflectRequest, ReflectResult
from application.trust.access import AccessResolver
from application.trust.ports import ControlStore
from domain.errors import TesseraError
from domain.policy import MemoryPolicyContext, Surface
from domain.reasons import ReasonCode
from domain.scopes import LifecycleState

__all__ = ["ReflectionLane"]

_log = logging.getLogger("tessera.reflection")

#: sources one job reflects at most (a reflect request takes up to 200)
JOB_SOURCES = 50
#: sources a catch-up reads per page
_PAGE = 200

Reflect = Callable[[ReflectRequest, MemoryPolicyContext], Awaitable[ReflectResult]]


class _Job(msgspec.Struct, frozen=True, kw_only=True):
    org_id: str
    principal_id: str
    source_ids: tuple[str, ...]
    queued_at: datetime


class ReflectionLane:
    def __init__(
        self,
        *,
        reflect: Reflect,
        store: MemoryStore,
        control: ControlStore,
        access: AccessResolver,
        clock: Clock,
        capacity: int = 256,
        quiet_s: float = 0.05,
        max_defer_s: float = 1.0,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        if capacity < 1:
            raise ValueError("capacity must be >= 1")
        #: writes pause this long before a job starts, unless it waited ``max_defer_s``
        self._quiet_s, self._max_defer_s, self._monotonic = quiet_s, max_defer_s, monotonic
        self._last_offer = 0.0
        self._reflect = reflect
        self._store = store
        self._control = control
        self._access = access
        self._clock = clock
        self.capacity = capacity
        self._queue: deque[_Job] = deque()
        #: (org, writer) -> the first source id dropped while the queue was full
        self._behind: dict[tuple[str, str], str] = {}
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._task: asyncio.Task[None] | None = None
        self.reflected = 0
        self.failed = 0
        self.dropped = 0
        self.last_error: ReasonCode | None = None

    # -- what writers call ------------------------------------------------------

    def offer(self, policy: MemoryPolicyContext, source_ids: Sequence[str]) -> None:
        """Reflect these new sources of the caller later; never waits, never raises."""
        if policy.actor is None or not source_ids:
            return
        principal = policy.actor.principal_id
        self._last_offer = self._monotonic()
        for start in range(0, len(source_ids), JOB_SOURCES):
            ids = tuple(source_ids[start : start + JOB_SOURCES])
            if len(self._queue) >= self.capacity:
                self.dropped += len(ids)
                self._behind.setdefault((policy.org_id, principal), min(ids))
                continue
            job = _Job(
                org_id=policy.org_id,
                principal_id=principal,
                source_ids=ids,
                queued_at=self._clock.now(),
            )
            self._queue.append(job)
        self._start()

    # -- progress ------------------------------------------------------------------

    @property
    def depth(self) -> int:
        return len(self._queue)

    def queue_state(self) -> QueueState:
        age = None
        if self._queue:
            age = max(0.0, (self._clock.now() - self._queue[0].queued_at).total_seconds())
        return QueueState(
            name="reflection",
            depth=len(self._queue),
            oldest_age_s=age,
            failed=self.failed,
            done=self.reflected,
            behind=len(self._behind),
            last_error=self.last_error,
        )

    async def drain(self) -> None:
        """Wait until every queued job and catch-up is done (tests, shutdown)."""
        while self._queue or self._behind or not self._idle.is_set():
            self._start()
            await self._idle.wait()
            await asyncio.sleep(0)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    # -- the worker ------------------------------------------------------------------

    def _start(self) -> None:
        self._wake.set()
        if self._task is None or self._task.done():
            with contextlib.suppress(RuntimeError):  # no running loop: the next offer starts it
                self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while True:
            self._wake.clear()
            if not self._queue and self._behind:
                await self._catch_up()
            if not self._queue:
                self._idle.set()
                await self._wake.wait()
                continue
            self._idle.clear()
            await self._quiet()
            job = self._queue.popleft()
            try:
                await self._work(job)
            except Exception:  # a bug must not end the worker (and hang every drain)
                self.failed += 1
                self.last_error = ReasonCode.INTERNAL_ERROR
                _log.exception("background reflection failed a job; it goes on")

    async def _quiet(self) -> None:
        """Let a burst of writes pass first (measured: benchmarks/RESULTS.md)."""
        began = self._monotonic()
        while self._quiet_s > 0 and self._monotonic() - began < self._max_defer_s:
            since = self._monotonic() - self._last_offer
            if since >= self._quiet_s:
                return
            await asyncio.sleep(self._quiet_s - since)

    async def _work(self, job: _Job) -> None:
        record = await self._control.get_principal(job.org_id, job.principal_id)
        if record is None:  # the writer is gone: its authority went with it
            self.failed += 1
            self.last_error = ReasonCode.JOB_POLICY_CONTEXT_STALE
            return
        ctx = await self._access.context_for(record, Surface.JOB)
        request = ReflectRequest(org_id=job.org_id, source_ids=list(job.source_ids))
        try:
            result = await self._reflect(request, ctx)
        except TesseraError as exc:
            self.failed += 1
            self.last_error = exc.reason
            return
        self.reflected += result.sources

    async def _catch_up(self) -> None:
        """Queue what a full queue dropped: each writer's sources from the first it dropped."""
        (org_id, principal), first = next(iter(self._behind.items()))
        after: str | None = first[:-1]  # a prefix sorts just before the first dropped id
        found: list[str] = []
        while after is not None and len(self._queue) < self.capacity:
            page = await self._store.list_sources(org_id, after, _PAGE)
            found += [
                s.source_id
                for s in page
                if s.created_by == principal
                and s.source_id >= first
                and s.lifecycle is LifecycleState.ACTIVE
            ]
            after = page[-1].source_id if len(page) == _PAGE else None
            while len(found) >= JOB_SOURCES or (after is None and found):
                self._queue.append(self._job(org_id, principal, found[:JOB_SOURCES]))
                found = found[JOB_SOURCES:]
        if after is None:
            del self._behind[(org_id, principal)]
        else:  # still full: go on from the first source not queued, next time
            self._behind[(org_id, principal)] = found[0] if found else after

    def _job(self, org_id: str, principal: str, ids: Sequence[str]) -> _Job:
        return _Job(
            org_id=org_id,
            principal_id=principal,
            source_ids=tuple(ids),
            queued_at=self._clock.now(),
        )
