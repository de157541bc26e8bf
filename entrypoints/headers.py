"""HTTP header names and parsing shared by the service and its clients (CLI, MCP)."""

from collections.abc import Iterable

__all__ = ["AGENT_HEADER", "allow_header", "bearer_key"]

#: a client may say which agent it acts as; it must be the key's own agent
AGENT_HEADER = "x-tessera-agent"


def bearer_key(authorization: str | None) -> str | None:
    """The key of an ``Authorization: Bearer <key>`` header, or None."""
    if not authorization:
        return None
    scheme, _, key = authorization.strip().partition(" ")
    if scheme.lower() != "bearer" or not key.strip():
        return None
    return key.strip()


def allow_header(methods: Iterable[str]) -> str:
    """``Allow``'s value: each method once, upper case, sorted."""
    return ", ".join(sorted({m.strip().upper() for m in methods if m.strip()}))
