"""Failures as exceptions that carry a stable reason code.

The detail is written for the caller and must never quote hidden source text:
it names fields, limits and ids, not content.
"""

from domain.reasons import ReasonCode

__all__ = [
    "AuthenticationError",
    "ConflictError",
    "InvalidInputError",
    "NotFoundError",
    "PolicyDeniedError",
    "StoreUnavailableError",
    "TesseraError",
    "UpstreamError",
]


class TesseraError(Exception):
    """Base of every failure Tessera reports on purpose."""

    def __init__(self, reason: ReasonCode, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


class InvalidInputError(TesseraError):
    """The caller sent something we refuse; fixing the input fixes it."""


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
