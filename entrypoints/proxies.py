"""Which forwarding headers the HTTP server believes: only those of configured proxies.

Why: uvicorn believes X-Forwarded-For and X-Forwarded-Proto from 127.0.0.1
and ::1 unless told otherwise, so anyone on this machine (or any caller a
local proxy passes through unchanged) could choose the address the sign-in
rate limit counts by sending a new header with each try. Without
``TESSERA_TRUSTED_PROXIES`` no forwarding header is read and the peer's
address is the client; with it, the headers are read only from those peers,
and the client is the nearest address in X-Forwarded-For that is not one of
them.
"""

from typing import Any

from entrypoints.settings import Settings

__all__ = ["proxy_options"]


def proxy_options(settings: Settings) -> dict[str, Any]:
    """uvicorn's options for the forwarding headers under these settings."""
    if not settings.trusted_proxies:
        return {"proxy_headers": False}
    return {"proxy_headers": True, "forwarded_allow_ips": list(settings.trusted_proxies)}
