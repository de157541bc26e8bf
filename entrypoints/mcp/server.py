"""The MCP server object: lists the tools and answers tool calls as the caller's key.

Who calls comes from the transport, never from tool arguments: over stdio
the process's ``TESSERA_API_KEY``; over HTTP the bearer key of each request.
Every failure is a tool error whose structured content is
``{"error": {"reason", "detail"}}`` with the same stable reason codes as the
HTTP API; no stack trace and no stored text reach the client.
"""

import json
import logging
from collections.abc import Callable, Mapping, Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import msgspec
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    CallToolRequestParams,
    CallToolResult,
    ListToolsResult,
    PaginatedRequestParams,
    TextContent,
    Tool,
    ToolAnnotations,
)

from domain.errors import TesseraError
from domain.reasons import ReasonCode
from entrypoints.backends import Backend
from entrypoints.credentials import Credentials
from entrypoints.mcp.export_tools import EXPORT_TOOLS
from entrypoints.mcp.schemas import object_schema
from entrypoints.mcp.share_tools import SHARE_TOOLS
from entrypoints.mcp.synthesis_tools import SYNTHESIS_TOOLS
from entrypoints.mcp.tools import TOOLS, Route, ToolSpec

__all__ = ["CredentialSource", "build_server", "tool_error"]

_log = logging.getLogger("tessera.mcp")

#: who the current request acts as, read from its transport
CredentialSource = Callable[[ServerRequestContext[Any, Any]], Credentials]

INSTRUCTIONS = (
    "Tessera is the user's long-term memory. Recall or build a context pack before answering "
    "from memory and cite the source ids you use; remember what the user asks you to keep. "
    "A refused call carries a reason code (for example unverified_membership) in "
    "structuredContent.error.reason."
)


def _version() -> str:
    try:
        return version("tessera")
    except PackageNotFoundError:
        return "0+unknown"


def tool_error(reason: ReasonCode | str, detail: str) -> CallToolResult:
    error = {"reason": str(reason), "detail": detail}
    return CallToolResult(
        content=[TextContent(text=f"{detail} [{reason}]")],
        structured_content={"error": error},
        is_error=True,
    )


def _listing(spec: ToolSpec) -> Tool:
    return Tool(
        name=spec.name,
        title=spec.title,
        description=spec.description,
        input_schema=object_schema(spec.arguments),
        output_schema=object_schema(spec.result),
        annotations=ToolAnnotations(
            title=spec.title,
            read_only_hint=spec.read_only,
            destructive_hint=False,
            idempotent_hint=spec.read_only,
            open_world_hint=False,
        ),
    )


def _invalid(exc: msgspec.ValidationError) -> CallToolResult:
    message = str(exc)
    reason = ReasonCode.UNKNOWN_FIELD if "unknown field" in message else ReasonCode.INVALID_REQUEST
    return tool_error(reason, message)


async def _answer(
    backend: Backend, spec: ToolSpec, args: Any, route: Route, who: Credentials
) -> Any:
    if spec.lines is None:
        return await backend.call(
            route.method, route.path, route.body, params=route.params, credentials=who
        )
    text = await backend.text(
        route.method, route.path, route.body, params=route.params, credentials=who
    )
    return spec.lines(args, [json.loads(line) for line in text.splitlines() if line.strip()])


async def _call(
    backend: Backend, spec: ToolSpec, arguments: Mapping[str, Any], who: Credentials
) -> CallToolResult:
    try:
        args = msgspec.convert(dict(arguments), spec.arguments)
    except msgspec.ValidationError as exc:
        return _invalid(exc)
    route = spec.route(args)
    try:
        answer = await _answer(backend, spec, args, route, who)
    except TesseraError as exc:
        return tool_error(exc.reason, exc.detail)
    except Exception as exc:  # a tool call must answer, never crash the session
        # the type only: a third-party message may quote stored text
        _log.error("tool %s failed: %s", spec.name, type(exc).__name__)
        return tool_error(ReasonCode.INTERNAL_ERROR, "internal error")
    result = spec.shape(answer)
    text = spec.text(args, result)
    return CallToolResult(
        content=[
            TextContent(text=json.dumps(result, ensure_ascii=False) if text is None else text)
        ],
        structured_content=result,
    )


def build_server(
    backend: Backend,
    credentials: CredentialSource,
    tools: Sequence[ToolSpec] = (*TOOLS, *SYNTHESIS_TOOLS, *EXPORT_TOOLS, *SHARE_TOOLS),
) -> Server[Any]:
    """An MCP server whose every tool call goes through ``backend`` as the caller's key."""
    by_name = {spec.name: spec for spec in tools}
    listing = [_listing(spec) for spec in tools]

    async def list_tools(
        ctx: ServerRequestContext[Any, Any], params: PaginatedRequestParams | None
    ) -> ListToolsResult:
        return ListToolsResult(tools=listing)

    async def call_tool(
        ctx: ServerRequestContext[Any, Any], params: CallToolRequestParams
    ) -> CallToolResult:
        spec = by_name.get(params.name)
        if spec is None:
            raise MCPError(INVALID_PARAMS, f"no tool named {params.name!r}")
        return await _call(backend, spec, params.arguments or {}, credentials(ctx))

    schemas = {tool.name: tool.input_schema for tool in listing}

    return Server(
        "tessera",
        version=_version(),
        title="Tessera memory",
        instructions=INSTRUCTIONS,
        get_tool_input_schema=schemas.get,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
