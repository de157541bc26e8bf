"""The MCP tool layer: schemas, argument checks, error mapping and who a call acts as."""

import json
from types import SimpleNamespace
from typing import Any

import jsonschema
import msgspec
import pytest
from mcp import Client, MCPError
from starlette.types import Message, Scope

from application.memory.results import RememberResult
from domain.errors import PolicyDeniedError, StoreUnavailableError
from domain.policy import OrgRole, SpaceRole
from domain.reasons import ReasonCode
from domain.scopes import MemoryScope
from entrypoints.credentials import Credentials
from entrypoints.http.schemas import RememberBody
from entrypoints.mcp.export_tools import EXPORT_PAGE_MAX, EXPORT_TOOLS
from entrypoints.mcp.run import RequireBearer, request_credentials
from entrypoints.mcp.schemas import object_schema
from entrypoints.mcp.server import build_server
from entrypoints.mcp.share_tools import SHARE_TOOLS
from entrypoints.mcp.synthesis_tools import SYNTHESIS_TOOLS
from entrypoints.mcp.tools import TOOLS
from tests.support.mcp_driver import McpDriver


class FakeBackend:
    """Records calls and answers with a canned value or raises a canned error."""

    description = "fake"

    def __init__(self, answer: Any = None, error: BaseException | None = None) -> None:
        self.answer, self.error = answer, error
        self.calls: list[tuple[str, str, Any, Credentials | None]] = []
        self.params: list[dict[str, Any] | None] = []

    async def call(
        self,
        method: str,
        path: str,
        body: Any = None,
        params: dict[str, Any] | None = None,
        credentials: Credentials | None = None,
    ) -> Any:
        self.calls.append((method, path, body, credentials))
        self.params.append(params)
        if self.error is not None:
            raise self.error
        return self.answer

    async def text(
        self,
        method: str,
        path: str,
        body: Any = None,
        params: dict[str, Any] | None = None,
        credentials: Credentials | None = None,
    ) -> str:
        """The canned answer (a list of records) as JSON lines."""
        await self.call(method, path, body, params, credentials)
        return "".join(json.dumps(record) + "\n" for record in self.answer)

    async def close(self) -> None:
        pass


def test_schemas_are_objects_at_the_top_with_nested_types_defined() -> None:
    schema = object_schema(RememberBody)
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    assert {"Turn", "MemoryScope"} <= set(schema["$defs"])
    jsonschema.validate(
        {"turns": [{"role": "user", "content": "hi"}], "scope": "project", "scope_key": "p"},
        schema,
    )
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"scope": "galaxy"}, schema)
    result = msgspec.to_builtins(RememberResult(source_id="s", chunk_ids=["c"]))
    jsonschema.validate(result, object_schema(RememberResult))


def test_every_tool_says_when_to_use_it_in_one_or_two_sentences() -> None:
    assert len({t.name for t in TOOLS}) == len(TOOLS) == 18
    every = (*TOOLS, *SYNTHESIS_TOOLS, *EXPORT_TOOLS, *SHARE_TOOLS)
    assert len({t.name for t in every}) == len(every) == 26
    for tool in every:
        sentences = [s for s in tool.description.split(". ") if s.strip()]
        assert 1 <= len(sentences) <= 2, tool.name
        assert "Use it" in tool.description or "For " in tool.description, tool.name


async def test_a_call_goes_to_its_route_as_the_callers_credentials() -> None:
    backend = FakeBackend(answer={"results": []})
    who = Credentials("tsk_a_b", "agent-1")
    async with Client(build_server(backend, lambda _ctx: who)) as client:
        result = await client.call_tool("recall", {"query": "keys", "limit": 3})
        assert not result.is_error and result.structured_content == {"results": []}
        assert json.loads(result.content[0].text) == {"results": []}
        backend.error = PolicyDeniedError(ReasonCode.NOT_FOUND, "no such source")
        await client.call_tool("inspect_source", {"source_id": "a/b?c"})
    # the route's own body: filters (not given) travel as null, which the route reads as none
    body = {"query": "keys", "limit": 3, "filters": None}
    assert backend.calls[0] == ("POST", "/api/search", body, who)
    # an id cannot change the route it travels in
    assert backend.calls[1][:2] == ("GET", "/api/memory/sources/a%2Fb%3Fc")


async def test_export_pages_through_the_json_lines_as_the_callers_credentials() -> None:
    records = [_record("s1"), _record("s2")]
    backend = FakeBackend(answer=records)
    who = Credentials("tsk_a_b")
    async with Client(build_server(backend, lambda _ctx: who)) as client:
        full = await client.call_tool("memory_export", {"limit": 2})
        backend.answer = records[1:]
        last = await client.call_tool("memory_export", {"after": "s1", "limit": 2})
        default = await client.call_tool("memory_export", {})
        too_many = await client.call_tool("memory_export", {"limit": EXPORT_PAGE_MAX + 1})
    assert full.structured_content == {"records": records, "next_after": "s2"}
    assert [json.loads(line) for line in full.content[0].text.splitlines()] == records
    assert last.structured_content == {"records": records[1:], "next_after": None}
    assert backend.calls[0] == ("POST", "/api/memory/export", None, who)
    assert backend.params == [{"limit": 2}, {"after": "s1", "limit": 2}, {"limit": 50}]
    assert not default.is_error
    assert too_many.is_error and too_many.structured_content["error"]["reason"] == (
        "invalid_request"
    )


def _record(source_id: str) -> dict[str, Any]:
    """An export line as the route writes it (the fields the result schema requires)."""
    return {
        "source_id": source_id,
        "scope": "private",
        "scope_key": "u1",
        "source_type": "note",
        "source_uri": None,
        "version": 1,
        "content_hash": "h",
        "created_by": "u1",
        "created_at": "2026-01-01T00:00:00Z",
        "occurred_at": None,
        "lifecycle": "active",
        "marks": [],
        "superseded_by": None,
        "duplicate_of": None,
        "exposure": "text",
        "metadata": {},
        "content": "a note",
        "corrections": [],
    }


async def test_list_spaces_wraps_the_list_in_an_object() -> None:
    backend = FakeBackend(answer=[])
    async with Client(build_server(backend, lambda _ctx: Credentials("k"))) as client:
        result = await client.call_tool("list_spaces", {})
    assert result.structured_content == {"spaces": []}


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        ({"query": "x", "as_user": "root"}, "unknown_field"),
        ({"limit": 3}, "invalid_request"),
        ({"query": 7}, "invalid_request"),
    ],
)
async def test_bad_arguments_are_tool_errors_before_any_call(
    arguments: dict[str, Any], reason: str
) -> None:
    backend = FakeBackend()
    async with Client(build_server(backend, lambda _ctx: Credentials("k"))) as client:
        result = await client.call_tool("recall", arguments)
    assert result.is_error and result.structured_content["error"]["reason"] == reason
    assert backend.calls == []


@pytest.mark.parametrize(
    ("error", "reason", "detail"),
    [
        (PolicyDeniedError(ReasonCode.SCOPE_DISABLED, "not yet"), "scope_disabled", "not yet"),
        (StoreUnavailableError(ReasonCode.STORE_LOCKED, "busy"), "store_locked", "busy"),
        (RuntimeError("secret stored text"), "internal_error", "internal error"),
    ],
)
async def test_failures_are_tool_errors_with_the_reason_and_no_stored_text(
    error: BaseException, reason: str, detail: str, caplog: pytest.LogCaptureFixture
) -> None:
    backend = FakeBackend(error=error)
    async with Client(build_server(backend, lambda _ctx: Credentials("k"))) as client:
        result = await client.call_tool("context", {"query": "x"})
    assert result.is_error
    assert result.structured_content == {"error": {"reason": reason, "detail": detail}}
    assert "secret" not in result.content[0].text and "secret" not in caplog.text


async def test_an_unknown_tool_is_a_protocol_error() -> None:
    async with Client(build_server(FakeBackend(), lambda _ctx: Credentials("k"))) as client:
        with pytest.raises(MCPError) as caught:
            await client.call_tool("forget_everything", {})
    assert "forget_everything" in caught.value.message


def test_http_credentials_come_from_the_request_headers_only() -> None:
    headers = {"authorization": "Bearer tsk_x_y", "x-tessera-agent": "a1"}
    ctx = SimpleNamespace(request=SimpleNamespace(headers=headers))
    assert request_credentials(ctx) == Credentials("tsk_x_y", "a1")  # type: ignore[arg-type]
    assert request_credentials(SimpleNamespace(request=None)) == Credentials(None)  # type: ignore[arg-type]
    basic = SimpleNamespace(request=SimpleNamespace(headers={"authorization": "Basic abc"}))
    assert request_credentials(basic) == Credentials(None)  # type: ignore[arg-type]


async def _asgi(app: Any, path: str, headers: list[tuple[bytes, bytes]]) -> list[Message]:
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b""}

    async def send(message: Message) -> None:
        sent.append(message)

    scope: Scope = {"type": "http", "path": path, "headers": headers, "method": "POST"}
    await app(scope, receive, send)
    return sent


async def test_mcp_requests_without_a_bearer_key_get_401() -> None:
    reached: list[str] = []

    async def inner(scope: Scope, receive: Any, send: Any) -> None:
        reached.append(scope["path"])

    guarded = RequireBearer(inner)
    sent = await _asgi(guarded, "/mcp", [(b"authorization", b"Basic x")])
    assert sent[0]["status"] == 401
    assert json.loads(sent[1]["body"])["error"]["reason"] == "missing_api_key"
    await _asgi(guarded, "/mcp", [(b"Authorization", b"Bearer tsk_1_2")])
    await _asgi(guarded, "/elsewhere", [])
    assert reached == ["/mcp", "/elsewhere"]


async def test_access_preview_through_mcp_for_a_space_owner_only() -> None:
    driver = McpDriver()
    try:
        org = await driver.org("acme")
        boss = await driver.user(org, "boss", OrgRole.OWNER)
        ana = await driver.user(org, "ana")
        space = await driver.space(org, MemoryScope.PROJECT, "apollo", writes=True)
        await driver.member(space, ana, SpaceRole.WRITER)
        source_id = await driver.remember(ana, "Apollo launch moved to May.", space.scope, "apollo")
        args = {"space_id": space.space_id, "principal": "ana"}
        preview = await driver._act(boss, "access_preview", args)
        assert preview["recallable_source_ids"] == [source_id] and preview["allowed"]
        assert "Apollo" not in json.dumps(preview)
        denied = await (await driver._client(ana)).call_tool("access_preview", args)
        assert denied.structured_content["error"]["reason"] == "admin_required"
    finally:
        await driver.close()


def test_remember_turns_take_an_optional_speaker() -> None:
    schema = object_schema(RememberBody)
    turn = schema["$defs"]["Turn"]
    assert "speaker" in turn["properties"]
    assert "speaker" not in turn.get("required", [])
    jsonschema.validate({"turns": [{"role": "user", "content": "hi", "speaker": "Maya"}]}, schema)


async def test_reflection_tools_travel_to_their_routes() -> None:
    view = {"candidates": [], "next_after": None}
    backend = FakeBackend(answer=view)
    who = Credentials("k")
    async with Client(build_server(backend, lambda _ctx: who)) as client:
        await client.call_tool("candidates_list", {"state": "pending", "limit": 5})
        backend.error = PolicyDeniedError(ReasonCode.NOT_FOUND, "no such candidate")
        await client.call_tool(
            "candidate_review",
            {"candidate_id": "c/1", "action": "accept", "promote_to_scope": "organization"},
        )
        await client.call_tool("candidate_review", {"candidate_id": "c1", "action": "reject"})
        await client.call_tool("reflect", {"source_ids": ["s1"]})
    assert [c[:3] for c in backend.calls] == [
        ("GET", "/api/memory/candidates?state=pending&limit=5", None),
        ("POST", "/api/memory/candidates/c%2F1/accept", {"promote_to_scope": "organization"}),
        ("POST", "/api/memory/candidates/c1/reject", None),
        (
            "POST",
            "/api/memory/reflect",
            {"source_ids": ["s1"], "space": None, "extractor": "rules"},
        ),
    ]
