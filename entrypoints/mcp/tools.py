"""The MCP tools: each one is one route of the HTTP API, with that route's own types.

A tool checks its arguments against the route's request type, calls the
route through a ``Backend`` (in-process, or the running service) as the
caller's key, and returns the route's JSON as the structured result. So
validation, authentication, the memory policy, audit receipts and reason
codes are the HTTP API's own, and nothing is implemented twice.
"""

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

import msgspec

from application.corrections.bulk import BulkDeletePreview, BulkDeleteResult, BulkSelector
from application.corrections.results import CorrectionApplied, CorrectionPreview
from application.imports.views import ImportList, ImportView
from application.memory.results import ContextPack, RememberResult, SearchResults
from application.operations.inspection import AccessPreview, SourceView
from application.reflection.commands import (
    CandidateList,
    ProposeResult,
    ReflectResult,
    ReviewResult,
)
from application.retrieval.wake_records import WakePack
from domain.relevance_gate import NOTHING_RELEVANT, nothing_relevant_words, weak_pack_words
from entrypoints.http.import_schemas import ImportIdArgs, ImportStartBody
from entrypoints.http.reflection_routes import ProposeBody, ReflectBody
from entrypoints.http.schemas import ContextBody, RememberBody, SearchBody
from entrypoints.http.wake_routes import WakeBody
from entrypoints.mcp.reflection_args import (
    CandidateReviewArgs,
    CandidatesListArgs,
    list_path,
    review_route,
)
from entrypoints.mcp.schemas import (
    AccessPreviewArgs,
    BulkDeleteArgs,
    CorrectApplyArgs,
    CorrectPreviewArgs,
    InspectSourceArgs,
    NoArgs,
    SpaceList,
)

__all__ = ["TOOLS", "Route", "ToolSpec"]

Json = Any


@dataclass(frozen=True)
class Route:
    method: str
    path: str
    body: Json = None
    params: dict[str, Any] | None = None


@dataclass(frozen=True)
class ToolSpec:
    name: str
    title: str
    #: tells an agent when to use the tool, in one or two sentences
    description: str
    arguments: type[msgspec.Struct]
    result: type[msgspec.Struct]
    route: Callable[[Any], Route]
    read_only: bool = True
    #: shapes the route's JSON into the result object (MCP results are objects)
    shape: Callable[[Json], Json] = lambda answer: answer
    #: the text content, when it is not the result's JSON (e.g. a document as Markdown)
    text: Callable[[Any, Json], str | None] = lambda args, result: None
    #: for a route that answers JSON lines: the result from the arguments and the lines
    lines: Callable[[Any, list[Json]], Json] | None = None


def _path(value: str) -> str:
    # ids travel in the URL path; quoting keeps a '/' or '?' in one from changing the route
    return quote(value, safe="")


def _correction(suffix: str) -> Callable[[Any], Route]:
    def route(args: Any) -> Route:
        body = msgspec.to_builtins(args)
        source_id = body.pop("source_id")
        return Route("POST", f"/api/memory/inspect/{_path(source_id)}/corrections{suffix}", body)

    return route


def _post(path: str) -> Callable[[msgspec.Struct], Route]:
    return lambda args: Route("POST", path, msgspec.to_builtins(args))


def _search_text(args: Any, result: Json) -> str | None:
    """A search the relevance gate held back: the words first, then the result's JSON."""
    if result.get("reason") != NOTHING_RELEVANT:
        return None
    words = nothing_relevant_words(int(result.get("below_floor", 0)))
    return f"{words}\n{json.dumps(result, ensure_ascii=False)}"


def _pack_text(args: Any, result: Json) -> str | None:
    """A pack the gate closed: the words first, then the pack's JSON."""
    if result.get("reason") != NOTHING_RELEVANT:
        return None
    words = weak_pack_words(len(result.get("items", [])), int(result.get("below_floor", 0)))
    return f"{words}\n{json.dumps(result, ensure_ascii=False)}"


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="remember",
        title="Remember",
        description=(
            "Store raw text (a note, a fact, a decision) or a whole conversation as turns, "
            "verbatim, so it can be recalled later with a citation. Use it whenever the user "
            "tells you something worth keeping; private memory by default."
        ),
        arguments=RememberBody,
        result=RememberResult,
        route=_post("/api/memory/remember"),
        read_only=False,
    ),
    ToolSpec(
        name="recall",
        title="Recall",
        description=(
            "Search memory for the passages that best match a question, ranked, each with its "
            "source id. Use it to look something up before answering from memory; empty "
            "results with reason nothing_relevant mean memory holds nothing about it."
        ),
        arguments=SearchBody,
        result=SearchResults,
        route=_post("/api/search"),
        text=_search_text,
    ),
    ToolSpec(
        name="context",
        title="Context pack",
        description=(
            "Build a cited context pack for a task: the most relevant remembered passages, "
            "grouped by conversation, that fit a token budget. Use it to ground a longer answer."
        ),
        arguments=ContextBody,
        result=ContextPack,
        route=_post("/api/context/pack"),
        text=_pack_text,
    ),
    ToolSpec(
        name="wake",
        title="Wake pack",
        description=(
            "What matters now, without a query: active decisions, open tasks, preferences and "
            "recent memory, each with its sources, in at most 1,200 tokens. Use it once at the "
            "start of a session."
        ),
        arguments=WakeBody,
        result=WakePack,
        route=_post("/api/context/wake"),
    ),
    ToolSpec(
        name="inspect_source",
        title="Inspect a source",
        description=(
            "Show what one cited source is, why you may see it and what was derived from it; "
            "its text only when its state allows. Use it to check a citation."
        ),
        arguments=InspectSourceArgs,
        result=SourceView,
        route=lambda args: Route("GET", f"/api/memory/sources/{_path(args.source_id)}"),
    ),
    ToolSpec(
        name="list_spaces",
        title="List memory spaces",
        description=(
            "List the memory spaces this key may read, with your role in each. Use it to find "
            "the scope and scope_key to remember into, or a space id for access_preview."
        ),
        arguments=NoArgs,
        result=SpaceList,
        route=lambda _: Route("GET", "/api/memory/spaces"),
        shape=lambda answer: {"spaces": answer},
    ),
    ToolSpec(
        name="access_preview",
        title="Preview access to a space",
        description=(
            "Show which sources of a space a given principal could recall, with counts of "
            "hidden ones and deny reasons, never text. For organisation admins and space owners."
        ),
        arguments=AccessPreviewArgs,
        result=AccessPreview,
        route=lambda args: Route(
            "POST",
            f"/api/memory/spaces/{_path(args.space_id)}/access-preview",
            {"principal": args.principal},
        ),
    ),
    ToolSpec(
        name="memory_correct_preview",
        title="Preview a correction",
        description=(
            "Preview a correction of a source (mark wrong, stale or sensitive, mark duplicate, "
            "supersede, hide, redact, restore, delete) and get a preview_token; nothing changes "
            "yet. Use it when the user says a memory is wrong, outdated, private or replaced."
        ),
        arguments=CorrectPreviewArgs,
        result=CorrectionPreview,
        route=_correction("/preview"),
    ),
    ToolSpec(
        name="memory_correct_apply",
        title="Apply a correction",
        description=(
            "Apply a correction previewed by memory_correct_preview, with the same arguments and "
            "its preview_token. Use it once the user agrees with the preview."
        ),
        arguments=CorrectApplyArgs,
        result=CorrectionApplied,
        route=_correction(""),
        read_only=False,
    ),
    ToolSpec(
        name="memory_delete_preview",
        title="Preview deleting many sources",
        description=(
            "Preview deleting every source of a space, a list of ids, an import or all of the "
            "user's own memory, with a preview_token; nothing is deleted yet. Use it only when "
            "the user asks to forget a whole set of memories."
        ),
        arguments=BulkSelector,
        result=BulkDeletePreview,
        route=_post("/api/memory/delete/preview"),
    ),
    ToolSpec(
        name="memory_delete_apply",
        title="Delete many sources",
        description=(
            "Delete for good the sources memory_delete_preview selected, with the same "
            "arguments and its preview_token. Use it once the user confirms the preview."
        ),
        arguments=BulkDeleteArgs,
        result=BulkDeleteResult,
        route=_post("/api/memory/delete"),
        read_only=False,
    ),
    ToolSpec(
        name="source_import_start",
        title="Start an import",
        description=(
            "Import an archive (mbox, maildir, jsonl chats, a ChatGPT export, markdown notes) "
            "that lies in your organisation's import area on the server into memory, in the "
            "background (an organisation's owner, or a principal the operator approved). Use it "
            "when the user asks to bring a mailbox or export in; then watch source_import_status."
        ),
        arguments=ImportStartBody,
        result=ImportView,
        route=_post("/api/sources/imports"),
        read_only=False,
    ),
    ToolSpec(
        name="source_import_status",
        title="Import status",
        description=(
            "Show one import's status, counters (read, written, duplicates, skipped, failed), "
            "checkpoint and skipped records with reasons. Use it to follow an import you started."
        ),
        arguments=ImportIdArgs,
        result=ImportView,
        route=lambda args: Route("GET", f"/api/sources/imports/{_path(args.import_id)}"),
    ),
    ToolSpec(
        name="source_import_list",
        title="List imports",
        description="List your imports, newest first. Use it to find an import's id.",
        arguments=NoArgs,
        result=ImportList,
        route=lambda _: Route("GET", "/api/sources/imports"),
        shape=lambda answer: {"imports": answer},
    ),
    ToolSpec(
        name="reflect",
        title="Reflect on sources",
        description=(
            "Extract candidate decisions, tasks, preferences, people and events from sources "
            "(by id, or a space's), each citing its spans, pending review. Use it "
            "after a session to turn what was said into durable memory."
        ),
        arguments=ReflectBody,
        result=ReflectResult,
        route=_post("/api/memory/reflect"),
        read_only=False,
    ),
    ToolSpec(
        name="candidates_list",
        title="List reflection candidates",
        description=(
            "List reflection candidates you may see, optionally by review state, a page at a "
            "time. Use it to find candidates to review."
        ),
        arguments=CandidatesListArgs,
        result=CandidateList,
        route=lambda args: Route("GET", list_path(args)),
    ),
    ToolSpec(
        name="candidate_review",
        title="Review a candidate",
        description=(
            "Accept (promote into cited graph records), reject or defer one candidate; a "
            "broader space needs promote_to_scope. Use it once the user agrees with a candidate."
        ),
        arguments=CandidateReviewArgs,
        result=ReviewResult,
        route=lambda args: Route("POST", *review_route(args)),
        read_only=False,
    ),
    ToolSpec(
        name="candidates_propose",
        title="Propose candidates",
        description=(
            "Propose your own candidates (type, text, cited spans with quotes) from sources "
            "you may read; each span is checked and refused with a reason if it is not there. "
            "Use it to record what you understood from a conversation for review."
        ),
        arguments=ProposeBody,
        result=ProposeResult,
        route=_post("/api/memory/candidates/propose"),
        read_only=False,
    ),
)
