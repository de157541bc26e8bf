"""Documented input limits, shared by every surface (HTTP, CLI, MCP)."""

__all__ = [
    "DEFAULT_PACK_BUDGET",
    "DEFAULT_SEARCH_LIMIT",
    "MAX_CONTENT_CHARS",
    "MAX_METADATA_KEYS",
    "MAX_PACK_BUDGET",
    "MAX_QUERY_CHARS",
    "MAX_SCOPE_KEY_CHARS",
    "MAX_SEARCH_LIMIT",
    "MAX_TURNS",
    "MIN_PACK_BUDGET",
]

#: one remembered source; larger documents should be split by the caller or an importer
MAX_CONTENT_CHARS = 200_000
MAX_QUERY_CHARS = 4_000
MAX_SCOPE_KEY_CHARS = 200
MAX_METADATA_KEYS = 64
#: turns in one remembered conversation
MAX_TURNS = 2_000
DEFAULT_SEARCH_LIMIT = 10
MAX_SEARCH_LIMIT = 100
DEFAULT_PACK_BUDGET = 2_000
MIN_PACK_BUDGET = 1
MAX_PACK_BUDGET = 32_000
