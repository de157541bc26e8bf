"""The share MCP tools: preview sharing a record into a space, then apply it with the token.

Each is the HTTP share route with its own body, so who may share, who would
see it and the token's checks are the route's (``application.sharing``).
"""

import msgspec

from application.sharing.commands import ShareApplied, SharePreview
from entrypoints.http.share_routes import ShareApplyBody, ShareBody
from entrypoints.mcp.tools import Route, ToolSpec

__all__ = ["SHARE_TOOLS"]

SHARE_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="memory_share_preview",
        title="Preview sharing into a space",
        description=(
            "Preview sharing a source or a promoted entity into a space: who would newly see "
            "it, what follows and what stays withheld, and a preview_token. Use it before "
            "memory_share, when the user wants others to see something they remembered."
        ),
        arguments=ShareBody,
        result=SharePreview,
        route=lambda args: Route(
            "POST", "/api/memory/share/preview", msgspec.to_builtins(args)
        ),
    ),
    ToolSpec(
        name="memory_share",
        title="Share into a space",
        description=(
            "Share what memory_share_preview previewed, with the same arguments and its "
            "preview_token. Use it once the user agrees with who would see it."
        ),
        arguments=ShareApplyBody,
        result=ShareApplied,
        route=lambda args: Route("POST", "/api/memory/share", msgspec.to_builtins(args)),
        read_only=False,
    ),
)
