"""Every failure becomes ``{"error": {"reason", "detail"}}`` with a 4xx/5xx status.

No stack trace and no request text ever reaches the client; unexpected
exceptions are logged by type and answered with ``internal_error``.
"""

import logging
from collections.abc import Mapping
from typing import Any

from litestar import MediaType, Request, Response
from litestar.exceptions import HTTPException, ValidationException

from domain.errors import TesseraError, bounded_detail
from domain.reasons import ReasonCode
from entrypoints.errors import status_for
from entrypoints.headers import allow_header
from entrypoints.web.errors import in_workspace, workspace_error

__all__ = ["EXCEPTION_HANDLERS", "error_response"]

_log = logging.getLogger("tessera.http")


def error_response(
    status: int,
    reason: ReasonCode | str,
    detail: str,
    headers: Mapping[str, str] | None = None,
) -> Response[object]:
    return Response(
        {"error": {"reason": str(reason), "detail": bounded_detail(detail)}},
        status_code=status,
        media_type=MediaType.JSON,
        headers=dict(headers or {}),
    )


def _validation_reason(exc: ValidationException) -> tuple[ReasonCode, str]:
    messages = []
    reason = ReasonCode.INVALID_REQUEST
    for item in exc.extra if isinstance(exc.extra, list) else []:
        if not isinstance(item, dict):
            continue
        message = str(item.get("message", ""))
        key = str(item.get("key", ""))
        if "unknown field" in message:
            reason = ReasonCode.UNKNOWN_FIELD
        messages.append(message if key in {"", "data"} else f"{key}: {message}")
    return reason, "; ".join(messages) or "the request body does not match the schema"


def _on_http_exception(request: Request[Any, Any, Any], exc: HTTPException) -> Response[Any]:
    if in_workspace(request.url.path):
        # an address under /memory that routing could not serve: a page, not JSON
        return workspace_error(request, exc)
    if isinstance(exc, ValidationException):
        reason, detail = _validation_reason(exc)
        return error_response(400, reason, detail)
    status = exc.status_code
    if status == 400 and "malformed" in str(exc.detail).lower():
        return error_response(400, ReasonCode.MALFORMED_JSON, "the request body is not valid JSON")
    if status == 404:
        return error_response(404, ReasonCode.NOT_FOUND, "no such route")
    if status == 413:
        return error_response(413, ReasonCode.CONTENT_TOO_LARGE, "the request body is too large")
    if status == 405:
        # RFC 9110: a 405 names the methods the route does take
        listed = (exc.headers or {}).get("allow", "")
        allow = {"allow": allow_header(listed.split(","))} if listed else {}
        return error_response(
            405, ReasonCode.INVALID_REQUEST, "method not allowed on this route", allow
        )
    if status >= 500:
        _log.error("http error %s", status)
        return error_response(status, ReasonCode.INTERNAL_ERROR, "internal error")
    return error_response(status, ReasonCode.INVALID_REQUEST, str(exc.detail))


def _on_tessera_error(_: Request[Any, Any, Any], exc: TesseraError) -> Response[object]:
    status = status_for(exc)
    if status >= 500:
        _log.warning("request failed: %s (%s)", exc.reason, type(exc).__name__)
    return error_response(status, exc.reason, exc.detail)


def _on_unexpected(_: Request[Any, Any, Any], exc: Exception) -> Response[object]:
    # log the type only: messages of third-party exceptions may quote stored text
    _log.error("unexpected %s while handling a request", type(exc).__name__)
    return error_response(500, ReasonCode.INTERNAL_ERROR, "internal error")


EXCEPTION_HANDLERS = {
    HTTPException: _on_http_exception,
    TesseraError: _on_tessera_error,
    Exception: _on_unexpected,
}
