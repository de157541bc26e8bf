"""The export MCP tools: what an export would hold, and the export itself, a page at a time.

Why pages: a tool's answer lands in an agent's context, so ``memory_export``
returns at most ``limit`` sources (50 unless asked, never more than
``EXPORT_PAGE_MAX``) in source-id order, and ``next_after`` to continue from;
``tessera export`` or ``POST /api/memory/export`` write everything at once.
The records are the HTTP export's own JSON lines (the route with ``after`` and
``limit``), so the policy, the audit receipt and the reason codes are its own;
the text content is those lines as they came.
"""

import json
from typing import Annotated, Any

import msgspec

from application.corrections.export import ExportPreview, ExportRecord
from entrypoints.mcp.schemas import NoArgs
from entrypoints.mcp.tools import Route, ToolSpec

__all__ = ["EXPORT_PAGE_MAX", "EXPORT_TOOLS", "ExportArgs", "ExportPage"]

#: the most sources one memory_export call returns
EXPORT_PAGE_MAX = 200


class ExportArgs(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    after: (
        Annotated[
            str, msgspec.Meta(min_length=1, description="Continue after this id (next_after).")
        ]
        | None
    ) = None
    limit: Annotated[
        int, msgspec.Meta(ge=1, le=EXPORT_PAGE_MAX, description="Sources in this page.")
    ] = 50


class ExportPage(msgspec.Struct, frozen=True, kw_only=True):
    records: list[ExportRecord]
    #: the last source id of a full page (call again with ``after`` set to it); None: done
    next_after: str | None = None


def _route(args: ExportArgs) -> Route:
    params: dict[str, Any] = {"limit": args.limit}
    if args.after is not None:
        params["after"] = args.after
    return Route("POST", "/api/memory/export", params=params)


def _page(args: ExportArgs, records: list[Any]) -> dict[str, Any]:
    full = len(records) == args.limit and records
    return {"records": records, "next_after": records[-1]["source_id"] if full else None}


def _lines(args: ExportArgs, result: Any) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in result["records"])


EXPORT_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="memory_export_preview",
        title="Preview an export",
        description=(
            "Count what an export of your memory would hold (sources, how many with text, by "
            "lifecycle), never text. Use it before memory_export, or to see how many pages."
        ),
        arguments=NoArgs,
        result=ExportPreview,
        route=lambda _: Route("POST", "/api/memory/export/preview"),
    ),
    ToolSpec(
        name="memory_export",
        title="Export memory",
        description=(
            "Export what you may read, a page of at most 200 sources at a time, with metadata, "
            "lifecycle and correction history, never vectors. Use it when the user asks for a "
            "copy of their memory; pass next_after as after for the next page."
        ),
        arguments=ExportArgs,
        result=ExportPage,
        route=_route,
        lines=_page,
        text=_lines,
    ),
)
