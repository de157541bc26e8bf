"""A slow-request log: the route's shape and timing, never what was asked.

Why: a request that took seconds left no trace
an operator could find. Each request slower than the threshold leaves one
WARNING line on ``tessera.slow``: method, route template (never the raw path,
whose ids a caller chose), status, milliseconds and body size in bytes. It
shows in ``GET /api/status`` with the other recent warnings.
"""

import logging
import time
from typing import Any

from litestar.enums import ScopeType
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["SlowRequestLog"]

_log = logging.getLogger("tessera.slow")


def _route(scope: Scope) -> str:
    handler: Any = scope.get("route_handler")
    paths = sorted(getattr(handler, "paths", ()) or ())
    return paths[0] if paths else "(no route)"


class SlowRequestLog(ASGIMiddleware):
    scopes = (ScopeType.HTTP,)

    def __init__(self, threshold_ms: float) -> None:
        self.threshold_ms = threshold_ms

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        started = time.perf_counter()
        facts = {"status": 0, "bytes": 0}

        async def counting_receive() -> Any:
            message = await receive()
            if message["type"] == "http.request":
                facts["bytes"] += len(message.get("body", b""))
            return message

        async def noting_send(message: Message) -> None:
            if message["type"] == "http.response.start":
                facts["status"] = message["status"]
            await send(message)

        try:
            await next_app(scope, counting_receive, noting_send)
        finally:
            elapsed_ms = (time.perf_counter() - started) * 1000
            if elapsed_ms >= self.threshold_ms:
                _log.warning(
                    "slow request: %s %s -> %d in %.0f ms (body %d bytes)",
                    scope.get("method", "?"),
                    _route(scope),
                    facts["status"],
                    elapsed_ms,
                    facts["bytes"],
                )
