"""Checkpoint tokens shared by the source adapters: ``<adapter>:<position>``.

Why a prefix: a token from one adapter handed to another must be refused,
not silently read as a position in a different archive.
"""

from domain.errors import InvalidInputError
from domain.reasons import ReasonCode

__all__ = [
    "decode_ordinal",
    "decode_text",
    "encode",
    "refuse",
]


def encode(adapter: str, position: str | int) -> str:
    return f"{adapter}:{position}"


def refuse(adapter: str) -> InvalidInputError:
    """The error for a token this adapter did not issue (raise it)."""
    return InvalidInputError(
        ReasonCode.INVALID_CHECKPOINT, f"not a checkpoint of the {adapter} adapter"
    )


def decode_text(adapter: str, token: str) -> str:
    prefix = adapter + ":"
    if not token.startswith(prefix) or len(token) == len(prefix) or "\x00" in token:
        raise refuse(adapter)
    return token[len(prefix) :]


def decode_ordinal(adapter: str, token: str) -> int:
    """An item's position (0-based) from its checkpoint."""
    value = decode_text(adapter, token)
    if not value.isascii() or not value.isdigit() or len(value) > 12:
        raise refuse(adapter)
    return int(value)
