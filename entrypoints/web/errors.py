"""Failures of workspace pages as pages: the same error table as the API, in words.

The status comes from ``entrypoints.errors.status_for``, the one table every
surface uses; the page shows the stable reason code and the use case's detail
(which never quotes stored text), escaped. No stack trace, no request text.

An address under ``/memory`` that names no page (or a method a page does not
take) fails while routing, before the workspace's router, its headers and its
handlers are reached: the app's handler answers those with ``workspace_error``,
so they are pages with the same security headers too. A signed-in person keeps
the navigation on every error page (``find_viewer`` looks the session up first).
"""

import logging
from collections.abc import Mapping
from typing import Any

from litestar import MediaType, Request, Response
from litestar.exceptions import HTTPException
from litestar.response import Redirect, Template
from litestar.types import Scope

from domain.errors import TesseraError, bounded_detail
from domain.reasons import ReasonCode
from entrypoints.errors import status_for
from entrypoints.headers import allow_header
from entrypoints.web.render import page
from entrypoints.web.security import PAGE_HEADERS, CsrfRefusedError
from entrypoints.web.viewer import SignInRequiredError, known_viewer, signed_in

__all__ = [
    "WEB_EXCEPTION_HANDLERS",
    "WORKSPACE",
    "error_page",
    "find_viewer",
    "in_workspace",
    "workspace_error",
]

#: where the workspace's pages live
WORKSPACE = "/memory"

_log = logging.getLogger("tessera.web")

_TITLES = {
    400: "The request was not understood",
    401: "Sign in again",
    403: "Not allowed",
    404: "Not found",
    409: "Something changed in the meantime",
    413: "Too large",
    422: "That does not work",
    429: "Too many attempts",
    503: "Memory is unavailable",
}


def in_workspace(path: str) -> bool:
    return path == WORKSPACE or path.startswith(f"{WORKSPACE}/")


def error_page(
    request: Request[Any, Any, Any],
    status: int,
    reason: ReasonCode | str,
    detail: str,
    headers: Mapping[str, str] | None = None,
) -> Template:
    """The error page, with the navigation when the request's person is signed in."""
    template = page(
        "error.html",
        known_viewer(request),
        status_code=status,
        title=_TITLES.get(status, "Something went wrong"),
        status=status,
        reason=str(reason),
        detail=bounded_detail(detail),
    )
    template.media_type = MediaType.HTML
    template.headers.update({**(headers or {}), **PAGE_HEADERS})
    return template


async def find_viewer(exc: Exception, scope: Scope) -> None:
    """Before an error page renders: who is signed in, if the failing request did not ask.

    An app ``after_exception`` hook, so it may wait for the key check that a
    (synchronous) exception handler cannot.
    """
    if isinstance(exc, SignInRequiredError) or not in_workspace(scope.get("path", "")):
        return
    request: Request[Any, Any, Any] = Request(scope)
    if known_viewer(request) is not None:
        return
    try:
        await signed_in(request)
    except Exception:  # whatever failed, the error page still renders, unsigned
        return


def _sign_in(_: Request[Any, Any, Any], __: SignInRequiredError) -> Response[Any]:
    return Redirect("/memory/sign-in", status_code=303)


def _csrf(request: Request[Any, Any, Any], __: CsrfRefusedError) -> Template:
    return error_page(
        request,
        403,
        ReasonCode.INVALID_REQUEST,
        "the form's security token is missing or wrong; reload the page and try again",
    )


def _tessera(request: Request[Any, Any, Any], exc: TesseraError) -> Template:
    status = status_for(exc)
    if status >= 500:
        _log.warning("page failed: %s (%s)", exc.reason, type(exc).__name__)
    return error_page(request, status, exc.reason, exc.detail)


def workspace_error(request: Request[Any, Any, Any], exc: HTTPException) -> Template:
    """An HTTP failure of a workspace address as a page (a 405 keeps its ``Allow``)."""
    status = exc.status_code
    if status == 404:
        return error_page(request, 404, ReasonCode.NOT_FOUND, "no such page")
    if status == 405:
        listed = (exc.headers or {}).get("allow", "")
        return error_page(
            request,
            405,
            ReasonCode.INVALID_REQUEST,
            "this page does not take that method",
            {"allow": allow_header(listed.split(","))} if listed else None,
        )
    if status == 413:
        return error_page(request, 413, ReasonCode.CONTENT_TOO_LARGE, "the form is too large")
    if status >= 500:
        _log.error("page error %s", status)
        return error_page(request, status, ReasonCode.INTERNAL_ERROR, "internal error")
    return error_page(request, status, ReasonCode.INVALID_REQUEST, "the request was not understood")


def _unexpected(request: Request[Any, Any, Any], exc: Exception) -> Template:
    _log.error("unexpected %s while rendering a page", type(exc).__name__)
    return error_page(request, 500, ReasonCode.INTERNAL_ERROR, "internal error")


WEB_EXCEPTION_HANDLERS: dict[int | type[Exception], Any] = {
    SignInRequiredError: _sign_in,
    CsrfRefusedError: _csrf,
    TesseraError: _tessera,
    HTTPException: workspace_error,
    Exception: _unexpected,
}
