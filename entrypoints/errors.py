"""The one table that maps failures to HTTP status codes and CLI exit codes."""

from domain.errors import (
    AuthenticationError,
    ConflictError,
    InvalidInputError,
    MalformedRequestError,
    NotFoundError,
    PolicyDeniedError,
    StoreUnavailableError,
    TesseraError,
    UpstreamError,
)
from domain.reasons import ReasonCode

__all__ = ["exit_code_for", "status_for"]

_BY_REASON: dict[ReasonCode, int] = {
    ReasonCode.CONTENT_TOO_LARGE: 413,
    ReasonCode.MALFORMED_JSON: 400,
    ReasonCode.UNSUPPORTED_MEDIA_TYPE: 415,
}

_BY_CLASS: list[tuple[type[TesseraError], int]] = [
    (MalformedRequestError, 400),
    (InvalidInputError, 422),
    (AuthenticationError, 401),
    (PolicyDeniedError, 403),
    (NotFoundError, 404),
    (ConflictError, 409),
    (StoreUnavailableError, 503),
    (UpstreamError, 502),
]


def status_for(error: TesseraError) -> int:
    if error.reason in _BY_REASON:
        return _BY_REASON[error.reason]
    for kind, status in _BY_CLASS:
        if isinstance(error, kind):
            return status
    return 500


def exit_code_for(error: TesseraError) -> int:
    """2 bad input (as argparse), 3 store/service unavailable, 4 refused (key, policy), 1 other."""
    if isinstance(error, InvalidInputError | NotFoundError):
        return 2
    if isinstance(error, StoreUnavailableError):
        return 3
    if isinstance(error, AuthenticationError | PolicyDeniedError):
        return 4
    return 1
