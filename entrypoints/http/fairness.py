"""Read admission: at most a few searches and context packs run at once; writes never wait here.

Why (issue 14, finding 1; measured with ``benchmarks/load.py --profile``):
under 30-50 clients of mostly searches, the server's one event loop is
CPU-bound, so every await waits a whole turn of a long ready queue (the loop
lagged ~60-400 ms). Writes to the embedded store run one at a time
(``SurrealConnection._writing``) and each holds that lock across such a
turn, plus an engine slowed by dozens of concurrent reads: a memory write
spent ~150 ms in the engine but ~1.2 s in total, nearly all of it queued
for the lock, and ``remember`` answered in 3-5 s against ~0.9 s for search.
Letting only ``slots`` read requests in at once keeps the ready queue and
the engine's work short; the others wait in this FIFO, where waiting costs
nothing, so a write's turn comes quickly and reads keep their throughput.
"""

import asyncio
from typing import Any

from litestar.enums import ScopeType
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Receive, Scope, Send

__all__ = ["DEFAULT_READ_SLOTS", "GATED_ROUTES", "ReadGate"]

#: read requests let in at once; 0 turns the gate off (every request at once, as before)
DEFAULT_READ_SLOTS = 4
#: the read routes that rank memory (CPU and store heavy); writes and lookups are not gated
GATED_ROUTES = frozenset({"/api/search", "/api/context/pack"})


class ReadGate(ASGIMiddleware):
    scopes = (ScopeType.HTTP,)

    def __init__(self, slots: int = DEFAULT_READ_SLOTS) -> None:
        if slots < 1:
            raise ValueError("a read gate needs at least one slot")
        self.slots = slots
        self._gate: asyncio.Semaphore | None = None

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        handler: Any = scope.get("route_handler")
        if not GATED_ROUTES.intersection(getattr(handler, "paths", ()) or ()):
            await next_app(scope, receive, send)
            return
        if self._gate is None:  # made in the serving loop, on first use
            self._gate = asyncio.Semaphore(self.slots)
        async with self._gate:
            await next_app(scope, receive, send)
