"""Failures of workspace pages as pages: the same error table as the API, in words.

The status comes from ``entrypoints.errors.status_for``, the one table every
surface uses; the page shows the stable reason code and the use case's detail
(which never quotes stored text), escaped. No stack trace, no request text.
"""

import logging
from typing import Any

from litestar import MediaType, Request, Response
from litestar.exceptions import HTTPException
from litestar.response import Redirect, Template

from domain.errors import TesseraError, bounded_detail
from domain.reasons import ReasonCode
from entrypoints.errors import status_for
from entrypoints.web.security import CsrfRefusedError
from entrypoints.web.viewer import SignInRequiredError

__all__ = ["WEB_EXCEPTION_HANDLERS", "error_page"]

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


def error_page(status: int, reason: ReasonCode | str, detail: str) -> Template:
    return Template(
        template_name="error.html",
        context={
            "viewer": None,
            "csrf": "",
            "title": _TITLES.get(status, "Something went wrong"),
            "status": status,
            "reason": str(reason),
            "detail": bounded_detail(detail),
        },
        status_code=status,
        media_type=MediaType.HTML,
    )


def _sign_in(_: Request[Any, Any, Any], __: SignInRequiredError) -> Response[Any]:
    return Redirect("/memory/sign-in", status_code=303)


def _csrf(_: Request[Any, Any, Any], __: CsrfRefusedError) -> Template:
    return error_page(
        403, ReasonCode.INVALID_REQUEST, "the form's security token is missing or wrong; "
        "reload the page and try again"
    )


def _tessera(_: Request[Any, Any, Any], exc: TesseraError) -> Template:
    status = status_for(exc)
    if status >= 500:
        _log.warning("page failed: %s (%s)", exc.reason, type(exc).__name__)
    return error_page(status, exc.reason, exc.detail)


def _http(_: Request[Any, Any, Any], exc: HTTPException) -> Template:
    status = exc.status_code
    if status == 404:
        return error_page(404, ReasonCode.NOT_FOUND, "no such page")
    if status == 405:
        return error_page(405, ReasonCode.INVALID_REQUEST, "this page does not take that method")
    if status == 413:
        return error_page(413, ReasonCode.CONTENT_TOO_LARGE, "the form is too large")
    if status >= 500:
        _log.error("page error %s", status)
        return error_page(status, ReasonCode.INTERNAL_ERROR, "internal error")
    return error_page(status, ReasonCode.INVALID_REQUEST, "the request was not understood")


def _unexpected(_: Request[Any, Any, Any], exc: Exception) -> Template:
    _log.error("unexpected %s while rendering a page", type(exc).__name__)
    return error_page(500, ReasonCode.INTERNAL_ERROR, "internal error")


WEB_EXCEPTION_HANDLERS: dict[int | type[Exception], Any] = {
    SignInRequiredError: _sign_in,
    CsrfRefusedError: _csrf,
    TesseraError: _tessera,
    HTTPException: _http,
    Exception: _unexpected,
}
