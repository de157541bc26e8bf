"""Response headers of every workspace page, and the CSRF check of every form.

Why: the pages show memory text a stranger may have written (an imported
mail, a note an agent kept). The Content-Security-Policy allows only this
app's own files, no inline script or style, so a ``<script>`` that slipped
past escaping still could not run; pages may not be framed; nothing is
cached, so the back button after sign-out shows no memory.
"""

import hmac

from litestar.datastructures import MutableScopeHeaders
from litestar.enums import ScopeType
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from entrypoints.web.sessions import WebSession

__all__ = ["PAGE_HEADERS", "CsrfRefusedError", "PageHeaders", "check_csrf"]

PAGE_HEADERS = {
    "content-security-policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
        "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "x-frame-options": "DENY",
    "cache-control": "no-store",
    "cross-origin-opener-policy": "same-origin",
}


class CsrfRefusedError(Exception):
    """A state-changing form without this session's token: 403, nothing changed."""


def check_csrf(session: WebSession, submitted: object) -> None:
    if not isinstance(submitted, str) or not hmac.compare_digest(
        submitted.encode(), session.csrf_token.encode()
    ):
        raise CsrfRefusedError


class PageHeaders(ASGIMiddleware):
    """Adds ``PAGE_HEADERS`` to every response of the workspace's routes, errors included."""

    scopes = (ScopeType.HTTP,)

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableScopeHeaders.from_message(message)
                for name, value in PAGE_HEADERS.items():
                    headers[name] = value
            await send(message)

        await next_app(scope, receive, with_headers)
