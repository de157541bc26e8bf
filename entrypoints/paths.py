"""Ids placed in URL paths by the CLI: always one encoded segment.

Why: ``tessera inspect ../spaces`` used to put the id into the path as typed, so
the HTTP client resolved the dot segments and the CLI printed another route's
answer. Every byte that is not unreserved is percent-encoded, and so are dots,
which a client or proxy may otherwise treat as ``.`` / ``..`` segments.
"""

from urllib.parse import quote

__all__ = ["path_segment"]


def path_segment(value: str) -> str:
    return quote(value, safe="").replace(".", "%2E")
