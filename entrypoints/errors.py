"""The one table that maps failures to HTTP status codes and CLI exit codes."""

from domain.errors import (
    ConflictError,
    InvalidInputError,
    NotFoundError,
    StoreUnavailableError,
    TesseraError,
    UpstreamError,
)
from domain.reasons import ReasonCode

__all__ = ["exit_code_for", "status_for"]

_BY_REASON: dict[ReasonCode, int] = {
    ReasonCode.CONTENT_TOO_LARGE: 413,
    ReasonCode.MALFORMED_JSON: 400,
}

_BY_CLASS: list[tuple[type[TesseraError], int]] = [
    (InvalidInputError, 422),
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
    """2 for bad input (like argparse), 3 when the store or service is unavailable, 1 otherwise."""
    if isinstance(error, InvalidInputError | NotFoundError):
        return 2
    if isinstance(error, StoreUnavailableError):
        return 3
    return 1
