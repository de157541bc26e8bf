"""The synthesis MCP tools: plan, draft, verify and remember, each one HTTP route.

Results are the routes' structured JSON; ``synthesize_draft`` with
``format: "markdown"`` also puts the document itself (not its JSON) in the
text content, for agents that show it to a person.
"""

from typing import Annotated, Any, Literal

import msgspec

from application.synthesis.commands import (
    DraftResult,
    PlanResult,
    RememberedArtifact,
    VerifyResult,
)
from domain.scopes import MemoryScope
from entrypoints.http.synthesis_routes import PlanBody
from entrypoints.mcp.tools import Route, ToolSpec

__all__ = ["SYNTHESIS_TOOLS"]

_RUN = msgspec.Meta(min_length=1, description="The run id synthesize_plan returned.")


class DraftArgs(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    run_id: Annotated[str, _RUN]
    drafter: Literal["extractive", "llm"] = "extractive"
    format: Annotated[
        Literal["json", "markdown"],
        msgspec.Meta(description="markdown: the text content is the document itself"),
    ] = "json"


class RunArgs(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    run_id: Annotated[str, _RUN]


class RememberArgs(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    run_id: Annotated[str, _RUN]
    scope: MemoryScope | None = None
    scope_key: str | None = None


def _draft_text(args: Any, result: Any) -> str | None:
    return str(result["markdown"]) if args.format == "markdown" else None


SYNTHESIS_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="synthesize_plan",
        title="Plan a cited document",
        description=(
            "Start a cited document (overview, brief or release notes) on a topic from memory "
            "and get its outline and run id. Use it first, then synthesize_draft and verify."
        ),
        arguments=PlanBody,
        result=PlanResult,
        route=lambda args: Route("POST", "/api/synthesize/plan", msgspec.to_builtins(args)),
        read_only=False,
    ),
    ToolSpec(
        name="synthesize_draft",
        title="Draft a cited document",
        description=(
            "Write the planned document from the memory you and its audience may read, every "
            "sentence citing source ids. Use it after synthesize_plan."
        ),
        arguments=DraftArgs,
        result=DraftResult,
        route=lambda args: Route(
            "POST", "/api/synthesize/draft", {"run_id": args.run_id, "drafter": args.drafter}
        ),
        read_only=False,
        text=_draft_text,
    ),
    ToolSpec(
        name="synthesize_verify",
        title="Verify a cited document",
        description=(
            "Check a drafted document: citation coverage, that each cited source supports its "
            "sentence, no hidden text, freshness. Use it before trusting or saving a draft."
        ),
        arguments=RunArgs,
        result=VerifyResult,
        route=lambda args: Route("POST", "/api/synthesize/verify", {"run_id": args.run_id}),
        read_only=False,
    ),
    ToolSpec(
        name="synthesize_remember",
        title="Remember a verified document",
        description=(
            "Save a verified document as memory with its provenance (cited sources, hash, "
            "verification). Use it when the user wants to keep the document."
        ),
        arguments=RememberArgs,
        result=RememberedArtifact,
        route=lambda args: Route("POST", "/api/synthesize/remember", msgspec.to_builtins(args)),
        read_only=False,
    ),
)
