"""The service's error answer read back as the error it was raised as, for every client."""

import json

from domain.errors import (
    AuthenticationError,
    ConflictError,
    InvalidInputError,
    NotFoundError,
    PolicyDeniedError,
    StoreUnavailableError,
    TesseraError,
    UpstreamError,
)
from domain.reasons import ReasonCode

__all__ = ["error_of"]

_ERRORS: dict[int, type[TesseraError]] = {
    401: AuthenticationError,
    403: PolicyDeniedError,
    404: NotFoundError,
    409: ConflictError,
    503: StoreUnavailableError,
}


def error_of(status: int, body: bytes) -> TesseraError:
    """``{"error": {"reason", "detail"}}`` with its status; anything else says the status."""
    try:
        error = json.loads(body)["error"]
        reason, detail = ReasonCode(error["reason"]), str(error["detail"])
    except (ValueError, KeyError, TypeError):
        reason, detail = ReasonCode.INTERNAL_ERROR, f"service answered HTTP {status}"
    kind = _ERRORS.get(status)
    if kind is None:
        kind = InvalidInputError if status < 500 else UpstreamError
    return kind(reason, detail)
