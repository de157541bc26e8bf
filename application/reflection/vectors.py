"""Vectors for derived records, made in the background after a promotion.

Why in the background: an accept must not wait for the model (the rule the
embedding lane keeps for writes, ``application.enrichment.lane``). Promotion writes the
records at once, so they are found by full-text immediately; this worker
then embeds each new entity (``type: name``) and relationship fact with the
organisation's embedder and attaches the vectors, and from then on the
records also match by meaning. A record without a vector of the current
model yet is simply absent from the vector signal.

- Durable without a queue of its own: what is left to do is read from the
  graph (``GraphStore.unembedded``: records with no vector of this model),
  so a restart, a crash or a changed embedder only delays the vectors. A
  pass runs when a promotion schedules it and on an organisation's first
  derived search in this process (``DerivedRecall``), a second after it: the
  pass's first read would otherwise queue in front of that search's own reads
  on the embedded store.
- Bounded: one pass per organisation at a time, in batches of ``batch``
  records; a promotion during a pass makes it run once more.
- Failures: a failed batch (the model, the store) ends the pass and is
  logged; the records stay unembedded and the next pass tries again.
- Policy: like the embedding lane, it returns no text to anyone; it reads a
  promoted record's text to embed it and writes back a vector.
"""

import asyncio
import contextlib
import logging

from application.enrichment.embedding import embed_texts
from application.ports import Embedder, MemoryStore
from application.ports.derived import DerivedVector
from application.ports.reflection import GraphStore
from domain.hashing import content_hash

__all__ = ["DerivedVectors"]

_log = logging.getLogger("tessera.embedding")


class DerivedVectors:
    def __init__(
        self,
        *,
        graph: GraphStore,
        store: MemoryStore,
        embedder: Embedder,
        batch: int = 64,
    ) -> None:
        if batch < 1:
            raise ValueError("batch must be >= 1")
        self._graph = graph
        self._store = store
        self._embedder = embedder
        self._batch = batch
        self._passes: dict[str, asyncio.Task[None]] = {}
        #: passes asked to start later (``schedule``'s ``after``), by organisation
        self._waiting: dict[str, asyncio.TimerHandle] = {}
        self._again: set[str] = set()
        self._closed = False

    @property
    def model(self) -> str:
        return self._embedder.space.model

    def schedule(self, org_id: str, after: float = 0.0) -> None:
        """Embed what the organisation's graph lacks, soon (``after`` seconds from now at
        the earliest: a pass already asked for sooner is not put off); never waits."""
        if self._closed:
            return
        if after > 0:
            if org_id not in self._waiting and not self._running(org_id):
                loop = asyncio.get_running_loop()
                self._waiting[org_id] = loop.call_later(after, self._start, org_id)
            return
        self._start(org_id)

    def _running(self, org_id: str) -> bool:
        running = self._passes.get(org_id)
        return running is not None and not running.done()

    def _start(self, org_id: str) -> None:
        waiting = self._waiting.pop(org_id, None)
        if waiting is not None:
            waiting.cancel()
        if self._closed:
            return
        if self._running(org_id):
            self._again.add(org_id)
            return
        self._passes[org_id] = asyncio.get_running_loop().create_task(self._run(org_id))

    async def catch_up(self, org_id: str) -> int:
        """Embed and attach every record of the organisation without a vector; how many."""
        done, seen = 0, set[tuple[str, str]]()
        while not self._closed:
            todo = await self._graph.unembedded(org_id, self.model, self._batch)
            fresh = [t for t in todo if (t.kind, t.record_id) not in seen]
            if not fresh:  # nothing left, or records that would not take a vector
                break
            seen |= {(t.kind, t.record_id) for t in fresh}
            texts = {content_hash(t.text): t.text for t in fresh}
            vectors = await embed_texts(self._store, self._embedder, org_id, texts)
            await self._graph.attach_vectors(
                org_id,
                self.model,
                [
                    DerivedVector(
                        kind=t.kind, record_id=t.record_id, vector=vectors[content_hash(t.text)]
                    )
                    for t in fresh
                ],
            )
            done += len(fresh)
        return done

    async def _run(self, org_id: str) -> None:
        while True:
            self._again.discard(org_id)
            try:
                await self.catch_up(org_id)
            except Exception as exc:  # the records stay unembedded; the next pass retries
                _log.warning("derived vectors of %s not made: %s", org_id, type(exc).__name__)
                return
            if org_id not in self._again or self._closed:
                return

    async def drain(self) -> None:
        """Start the passes asked for later now, and wait until no pass is running (tests,
        benchmarks, shutdown)."""
        for org_id in list(self._waiting):
            self._start(org_id)
        while running := [t for t in self._passes.values() if not t.done()]:
            await asyncio.gather(*running, return_exceptions=True)
        self._passes.clear()

    async def close(self) -> None:
        """Stop scheduling; the batch in hand finishes, the rest waits for the next start."""
        self._closed = True
        with contextlib.suppress(Exception):
            await self.drain()
