"""The embedding lane: a background worker that gives saved chunks their vectors.

Why: a write must not wait for the model (the model is the slow part of a
write, and a whole import would wait on it). So a write commits its source and
chunks, makes them lexically searchable at once, and hands the chunks here;
this worker embeds them in batches, attaches the vectors in the store and the
index, and a chunk becomes a vector candidate then.

- Durable: the queue that matters is each chunk's state in the store
  (``pending``); this in-process queue only holds what is next. A chunk that
  did not fit, or that a stopped process left behind, is found again by a
  rescan of the store (``resume``).
- Bounded: the queue holds at most ``capacity`` chunks. ``enqueue`` never
  waits (a single remember never slows down for it); an import asks
  ``room`` first, which waits while the organisation's backlog is over
  ``backlog_limit`` (backpressure slows imports, never one remember).
- Failures: a failed batch counts one attempt per chunk in the store and is
  retried with exponential backoff, each chunk alone (a chunk the model
  rejects cannot keep failing its neighbours); after ``max_attempts`` it
  moves to the dead letter (state ``failed``), visible in the status.
- Overlapped: the model embeds batch n+1 while batch n is attached in the store
  and the index (the model then sets the pace, not model + store). At most one
  attach is in flight and attaches run in batch order; the worker finishes
  the one in flight before it waits, goes idle or stops.
- Policy: embedding a chunk that was already written needs no read policy.
  The lane never returns text to anyone: it reads a chunk's text to embed it
  and writes back a vector, as the write that authorised the chunk would have.
"""

import asyncio
import contextlib
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence

from application.enrichment.embedding import embed_texts
from application.enrichment.lane_items import Item as _Item
from application.enrichment.lane_items import LaneSettings
from application.enrichment.lane_items import Ticket as _Ticket
from application.enrichment.lane_items import failure as _failure
from application.enrichment.priority import BACKGROUND
from application.ports import Embedder, MemoryStore, RetrievalIndex
from application.ports.records import Vector
from application.ports.writes import PendingChunk
from domain.errors import TesseraError
from domain.reasons import ReasonCode

__all__ = ["EmbeddingLane", "LaneSettings"]

_log = logging.getLogger("tessera.embedding")


class EmbeddingLane:
    def __init__(
        self,
        *,
        store: MemoryStore,
        index: RetrievalIndex,
        embedder: Embedder,
        settings: LaneSettings | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self._store = store
        self._index = index
        self._embedder = embedder
        self.settings = settings or LaneSettings()
        self._sleep = sleep
        self._queue: deque[_Item] = deque()
        #: (org, chunk id) of every item queued or being embedded, so a rescan adds none twice
        self._held: dict[tuple[str, str], _Item] = {}
        #: organisations whose store may hold pending chunks that are not queued here
        self._rescan: set[str] = set()
        #: chunks per organisation waiting here or left in the store by a full queue
        self._backlog: dict[str, int] = {}
        #: chunks a tagged writer (an import) queued and that have no vector yet
        self._tagged: dict[str, set[tuple[str, str]]] = {}
        self._tag_of: dict[tuple[str, str], str] = {}
        self._tags_seen: set[str] = set()
        self._wake = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        self._room = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        #: the attach of the last embedded batch, running while the model embeds the next
        self._attaching: asyncio.Task[None] | None = None
        self._stopping = False
        #: chunks dead-lettered by this process (the store holds the lasting count)
        self.dead_letters = 0

    # -- what writers call ------------------------------------------------

    @property
    def depth(self) -> int:
        """Chunks queued in this process."""
        return len(self._queue)

    def enqueue(
        self,
        org_id: str,
        chunks: Sequence[PendingChunk],
        *,
        wait: bool = False,
        tag: str | None = None,
        looked_up: bool = False,
    ) -> "asyncio.Future[None] | None":
        """Queue chunks the store has just saved pending; never waits.

        ``wait``: the caller will wait for these vectors, so they go first and always
        fit; the returned future completes when they are searchable by vector (or fails
        with ``embedder_failed`` at the first failure; the chunks then stay queued).
        ``looked_up``: the caller found no vector for their texts in the store's embedding
        cache as it saved them; the lane does not read the cache for them again.
        """
        if not chunks:
            return None
        self._backlog[org_id] = self._backlog.get(org_id, 0) + len(chunks)
        if tag is not None:
            self._tags_seen.add(tag)
            keys = {(org_id, c.chunk_id) for c in chunks}
            self._tagged.setdefault(tag, set()).update(keys)
            self._tag_of.update(dict.fromkeys(keys, tag))
        ticket = _Ticket(len(chunks)) if wait else None
        fresh: list[_Item] = []
        for chunk in chunks:
            item = self._held.get((org_id, chunk.chunk_id))
            if item is None:
                item = _Item(
                    org_id=org_id, chunk=chunk, attempts=chunk.attempts, looked_up=looked_up
                )
                fresh.append(item)
            if ticket is not None:
                item.waiters.append(ticket)
        if ticket is not None:
            for item in reversed(fresh):
                self._hold(item, first=True)
        elif len(self._queue) + len(fresh) <= self.settings.capacity:
            for item in fresh:
                self._hold(item)
        else:
            self._rescan.add(org_id)  # they wait in the store; read back as room frees
        self._start()
        if ticket is not None and self._stopping:
            ticket.fail(_failure("the service is stopping"))
        return None if ticket is None else ticket.future

    def waiting(self, org_id: str) -> bool:
        """Whether some of the organisation's chunks may still lack their vectors (queued,
        being embedded, or left in the store to read back)."""
        return self._backlog.get(org_id, 0) > 0 or org_id in self._rescan

    def outstanding(self, tag: str) -> int:
        """Chunks the writer named ``tag`` queued in this process that still wait for vectors."""
        return len(self._tagged.get(tag, ()))

    def knows(self, tag: str) -> bool:
        """Whether a writer named ``tag`` queued chunks in this process (its count is live)."""
        return tag in self._tags_seen

    def untag(self, tag: str) -> None:
        """Stop counting for a writer that is done with its counts."""
        for key in self._tagged.pop(tag, set()):
            self._tag_of.pop(key, None)

    async def room(self, org_id: str) -> None:
        """Wait while the organisation's backlog is over the limit (imports call this)."""
        while self._backlog.get(org_id, 0) > self.settings.backlog_limit and not self._stopping:
            self._start()
            self._room.clear()
            await self._room.wait()

    def resume(self, org_id: str) -> None:
        """Look in the store for the organisation's pending chunks (on start, after a crash)."""
        self._rescan.add(org_id)
        self._start()

    def forget(self, org_id: str) -> None:
        """The organisation is gone: drop what is queued for it, and disown the batch
        being embedded or attached for it (its outcome is nobody's: no retry, no
        failure recorded in a store that no longer holds the organisation)."""
        self._rescan.discard(org_id)
        for item in [i for i in self._queue if i.org_id == org_id]:
            self._queue.remove(item)
        for item in [i for k, i in self._held.items() if k[0] == org_id]:
            self._release(item)
            for ticket in item.waiters:
                ticket.fail(_failure("the organisation was dropped"))
            item.waiters.clear()
        self._backlog.pop(org_id, None)

    async def drain(self) -> None:
        """Wait until nothing is queued, being embedded, or left to read back from the store."""
        if self._stopping or (self._task is None and not self._queue and not self._rescan):
            return
        self._start()
        await self._idle.wait()

    async def stop(self) -> None:
        """Finish the batch in hand and stop; what is left stays pending in the store."""
        self._stopping = True
        self._wake.set()
        self._room.set()
        if self._task is not None:
            await self._task
            self._task = None
        for item in list(self._held.values()):
            for ticket in item.waiters:
                ticket.fail(_failure("the service stopped before its vectors were made"))
        self._queue.clear()
        self._held.clear()

    # -- the worker -------------------------------------------------------

    def _hold(self, item: _Item, *, first: bool = False) -> None:
        self._held[(item.org_id, item.chunk.chunk_id)] = item
        if first:
            self._queue.appendleft(item)
        else:
            self._queue.append(item)

    def _owned(self, batch: list[_Item]) -> list[_Item]:
        """The items of ``batch`` still held here (``forget`` disowns a dropped org's)."""
        return [i for i in batch if self._held.get((i.org_id, i.chunk.chunk_id)) is i]

    def _release(self, item: _Item) -> None:
        key = (item.org_id, item.chunk.chunk_id)
        self._held.pop(key, None)
        tag = self._tag_of.pop(key, None)
        if tag is not None:
            keys = self._tagged.get(tag, set())
            keys.discard(key)
            if not keys:
                self._tagged.pop(tag, None)
        left = self._backlog.get(item.org_id, 0) - 1
        self._backlog[item.org_id] = max(left, 0)
        if left <= self.settings.backlog_limit:
            self._room.set()

    def _start(self) -> None:
        self._idle.clear()
        self._wake.set()
        if self._task is None and not self._stopping:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        BACKGROUND.set(True)  # this task's model work may wait for requests (priority.py)
        while not self._stopping:
            try:
                await self._step()
            except Exception:  # a bug must not end the worker (and hang every drain)
                _log.exception("the embedding lane failed a step; it goes on")
                await self._sleep(self.settings.backoff)
        await self._settle()
        self._idle.set()

    async def _settle(self) -> None:
        """Wait for the attach in flight (it handles its own failures)."""
        task, self._attaching = self._attaching, None
        if task is not None:
            await asyncio.wait([task])

    async def _step(self) -> None:
        batch = self._take()
        if batch:
            await self._process(batch)
            return
        if self._attaching is not None:  # finish it first: it may requeue failed chunks
            await self._settle()
            return
        if self._rescan and len(self._queue) < self.settings.capacity:
            await self._refill(self._rescan.pop())
            return
        self._wake.clear()
        if self._queue:  # everything queued is backing off: wait for it, or for new work
            delay = min(i.not_before for i in self._queue) - time.monotonic()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), max(delay, 0.0))
            return
        self._idle.set()
        self._room.set()
        await self._wake.wait()

    def _take(self) -> list[_Item]:
        """The next batch: chunks of one organisation ready now; a retried chunk goes alone."""
        now = time.monotonic()
        batch: list[_Item] = []
        keep: deque[_Item] = deque()
        while self._queue:
            item = self._queue.popleft()
            full = bool(batch) and (batch[0].attempts > 0 or len(batch) >= self.settings.batch_size)
            if (
                full
                or item.not_before > now
                or (batch and (item.org_id != batch[0].org_id or item.attempts > 0))
            ):
                keep.append(item)
                if full:
                    break
                continue
            batch.append(item)
        keep.extend(self._queue)
        self._queue = keep
        return batch

    async def _refill(self, org_id: str) -> None:
        room = self.settings.capacity - len(self._queue)
        if room <= 0:
            self._rescan.add(org_id)
            return
        # held chunks are still pending in the store too: read past them
        limit = room + len(self._held)
        try:
            pending = await self._store.pending_embeddings(org_id, limit)
        except TesseraError as exc:
            _log.warning("could not read the embedding queue of %s: %s", org_id, exc.reason)
            await self._sleep(self.settings.backoff)
            self._rescan.add(org_id)
            return
        fresh = [p for p in pending if (org_id, p.chunk_id) not in self._held][:room]
        for chunk in fresh:
            self._hold(_Item(org_id=org_id, chunk=chunk, attempts=chunk.attempts))
        self._backlog[org_id] = max(self._backlog.get(org_id, 0), len(pending))
        if len(pending) >= limit:
            self._rescan.add(org_id)  # more may wait in the store

    async def _process(self, batch: list[_Item]) -> None:
        """Embed the batch (while the previous one is attached), then start its attach."""
        org_id = batch[0].org_id
        # a caller waits for these vectors (wait=indexed): not background work then
        mark = BACKGROUND.set(not any(i.waiters for i in batch))
        try:
            vectors = await embed_texts(
                self._store,
                self._embedder,
                org_id,
                {i.chunk.content_hash: i.chunk.text for i in batch},
                missed={i.chunk.content_hash for i in batch if i.looked_up},
            )
        except Exception as exc:
            await self._settle()  # failures are recorded in batch order too
            await self._failure(batch, exc)
            return
        finally:
            BACKGROUND.reset(mark)
        by_chunk = {i.chunk.chunk_id: vectors[i.chunk.content_hash] for i in batch}
        await self._settle()
        if not self._queue:  # nothing to embed beside it: attach now, as a lone batch would
            await self._attach(batch, by_chunk)
            return
        self._attaching = asyncio.get_running_loop().create_task(self._attach(batch, by_chunk))

    async def _attach(self, batch: list[_Item], by_chunk: dict[str, Vector]) -> None:
        org_id = batch[0].org_id
        try:
            model = self._embedder.space.model
            attached = await self._store.attach_vectors(org_id, model, by_chunk)
            await self._index.attach_vectors(org_id, {c: by_chunk[c] for c in attached})
        except Exception as exc:
            await self._failure(batch, exc)
            return
        for item in self._owned(batch):  # attached, or deleted meanwhile: nothing left to wait for
            self._release(item)
            for ticket in item.waiters:
                ticket.done_one()
        self._wake.set()  # the worker may be waiting for this attach to free room

    async def _failure(self, batch: list[_Item], exc: Exception) -> None:
        if not self._owned(batch):  # its organisation was dropped meanwhile
            return
        if isinstance(exc, TesseraError):
            await self._failed(batch, exc.reason)
            return
        # a worker must outlive any one batch; logged without text (called in its except)
        _log.exception("embedding batch of %s failed", batch[0].org_id)
        await self._failed(batch, ReasonCode.INTERNAL_ERROR, exc)

    async def _failed(
        self, batch: list[_Item], reason: ReasonCode, exc: Exception | None = None
    ) -> None:
        batch = self._owned(batch)
        if not batch:  # its organisation was dropped meanwhile: not a failure
            return
        org_id = batch[0].org_id
        limit = self.settings.max_attempts
        try:
            await self._store.embedding_failed(org_id, [i.chunk.chunk_id for i in batch], limit)
        except TesseraError as store_exc:
            _log.warning("could not record failed embeddings: %s", store_exc.reason)
        now = time.monotonic()
        for item in batch:
            item.attempts += 1
            for ticket in item.waiters:
                ticket.fail(_failure(f"embedding failed ({reason}); it is retried"))
            item.waiters.clear()
            if item.attempts >= limit:
                self.dead_letters += 1
                self._release(item)
                continue
            delay = min(self.settings.backoff * 2 ** (item.attempts - 1), self.settings.backoff_max)
            item.not_before = now + delay
            self._queue.append(item)
        _log.warning(
            "embedding %d chunk(s) of %s failed (%s)%s",
            len(batch),
            org_id,
            reason,
            f": {type(exc).__name__}" if exc is not None else "",
        )
