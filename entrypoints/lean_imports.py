"""Imports a Tessera process never uses, kept out of it.

httpx imports its own command-line client (rich, click, pygments: about 100
modules) whenever those packages are installed, and something else in the
environment may well install them. Tessera never runs that client, and the
CLI pays for the import on every command that talks to the service.
Marking the module absent makes httpx take its documented fallback.
"""

import sys

__all__ = ["skip_unused_imports"]


def skip_unused_imports() -> None:
    """Call before httpx is first imported; harmless after."""
    sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]
