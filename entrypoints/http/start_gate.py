"""The service listens while it opens: health says ``starting``, other requests wait.

Why: ``tessera serve`` opens the store, restores the index and loads the
model beside the HTTP app's own start, so a restart costs the longer of the
two instead of their sum. A request that arrives meanwhile is held until the
services are open (it is answered, never failed for being early); one held
longer than ``wait_s`` gets 503 ``starting``. ``GET /api/health`` answers at
once: 503 with ``{"status": "starting"}`` until then, for probes and people.
"""

import asyncio
import json

from litestar.enums import ScopeType
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Receive, Scope, Send

from domain.reasons import ReasonCode

__all__ = ["StartGate"]

_HEALTH = "/api/health"


class StartGate(ASGIMiddleware):
    scopes = (ScopeType.HTTP,)

    def __init__(self, wait_s: float = 120.0) -> None:
        self.wait_s = wait_s
        self._open = asyncio.Event()

    def open(self) -> None:
        """The services are open: let every request through from now on."""
        self._open.set()

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        if not self._open.is_set():
            if scope["path"] == _HEALTH:
                await _answer(send, {"status": "starting"})
                return
            try:
                await asyncio.wait_for(self._open.wait(), self.wait_s)
            except TimeoutError:
                detail = "the service is still starting; try again in a moment"
                error = {"reason": ReasonCode.STARTING.value, "detail": detail}
                await _answer(send, {"error": error})
                return
        await next_app(scope, receive, send)


async def _answer(send: Send, body: dict[str, object]) -> None:
    payload = json.dumps(body).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"retry-after", b"1"),
        (b"content-length", str(len(payload)).encode()),
    ]
    await send({"type": "http.response.start", "status": 503, "headers": headers})
    await send({"type": "http.response.body", "body": payload, "more_body": False})
