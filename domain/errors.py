"""Failures as exceptions that carry a stable reason code.

The detail is written for the caller and must never quote hidden source text:
it names fields, limits and ids, not content.
"""

from domain.reasons import ReasonCode

#: no detail is longer than this: a 1 MB name must not come back as a 1 MB error
MAX_DETAIL_CHARS = 300

__all__ = [
    "MAX_DETAIL_CHARS",
    "AuthenticationError",
    "ConflictError",
    "InvalidInputError",
    "MalformedRequestError",
    "NotFoundError",
    "PolicyDeniedError",
    "StoreUnavailableError",
    "TesseraError",
    "UpstreamError",
    "bounded_detail",
]


class TesseraError(Exception):
    """Base of every failure Tessera reports on purpose."""

    def __init__(self, reason: ReasonCode, detail: str) -> None:
        detail = bounded_detail(detail)
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


def bounded_detail(detail: str, limit: int = MAX_DETAIL_CHARS) -> str:
    """Cut a detail to ``limit`` characters: a 1 MB name must not come back as a 1 MB error."""
    if len(detail) <= limit:
        return detail
    return detail[: limit - 1] + "…"


class InvalidInputError(TesseraError):
    """The caller sent something we refuse; fixing the input fixes it."""


class MalformedRequestError(InvalidInputError):
    """The request cannot be read as the route's body: not JSON, wrong types (HTTP 400)."""


class NotFoundError(TesseraError):
    """The named record does not exist (or is not visible to the caller)."""


class ConflictError(TesseraError):
    """The request contradicts what is stored (e.g. another embedder's vectors)."""


class StoreUnavailableError(TesseraError):
    """The store cannot be opened or reached right now (locked, down)."""


class UpstreamError(TesseraError):
    """A model or storage engine failed while doing its part of the work."""


class AuthenticationError(TesseraError):
    """No valid credentials: the key is missing, unknown or revoked."""


class PolicyDeniedError(TesseraError):
    """The memory policy refused the operation; ``reason`` is the decision's reason."""
