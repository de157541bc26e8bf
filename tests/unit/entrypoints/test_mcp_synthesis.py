"""The synthesis MCP tools over the real app in process: plan, draft (JSON or Markdown,
with what each section left out), verify, remember, each through its HTTP route as the
caller's key."""

import json

import httpx
from mcp import Client

from domain.policy import Surface
from entrypoints.credentials import Credentials
from entrypoints.http.app import create_app
from entrypoints.http_backend import HttpBackend
from entrypoints.mcp.server import build_server
from entrypoints.mcp.synthesis_tools import SYNTHESIS_TOOLS
from tests.e2e.conftest import services_over_fakes


def test_synthesis_tools_say_when_to_use_them() -> None:
    assert [t.name for t in SYNTHESIS_TOOLS] == [
        "synthesize_plan",
        "synthesize_draft",
        "synthesize_verify",
        "synthesize_remember",
    ]
    for tool in SYNTHESIS_TOOLS:
        sentences = [s for s in tool.description.split(". ") if s.strip()]
        assert 1 <= len(sentences) <= 2 and "Use it" in tool.description, tool.name


async def test_plan_draft_verify_remember_through_mcp() -> None:
    services = services_over_fakes()
    issued = await services.control.bootstrap(Surface.CLI)
    assert issued is not None
    app = create_app(services, surface=Surface.MCP)
    client = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app),  # type: ignore[arg-type]
        base_url="http://tessera.test",
    )
    backend = HttpBackend(client, "in-process", Credentials(None))
    server = build_server(backend, lambda _ctx: Credentials(issued.key))
    try:
        async with Client(server) as mcp:
            for note in (
                "The storage engine keeps every source verbatim before deriving chunks.",
                "The team decided to use SurrealDB because the storage engine runs embedded.",
            ):
                assert not (await mcp.call_tool("remember", {"content": note})).is_error
            lunch = await mcp.call_tool(
                "remember",
                {"content": "Lunch on Friday: we decided on pizza.", "wait": "indexed"},
            )
            lunch_id = lunch.structured_content["source_id"]
            plan = await mcp.call_tool(
                "synthesize_plan", {"query": "the storage engine", "output_type": "brief"}
            )
            assert not plan.is_error, plan.content
            run_id = plan.structured_content["run_id"]
            as_json = await mcp.call_tool("synthesize_draft", {"run_id": run_id})
            assert json.loads(as_json.content[0].text)["run_id"] == run_id
            # what each section left out, and why, is in the result
            left = [x for s in as_json.structured_content["sections"] for x in s["left_out"]]
            assert {"source_id": lunch_id, "reason": "off_topic"}.items() <= left[0].items()
            assert "pizza" not in as_json.structured_content["markdown"]
            as_md = await mcp.call_tool(
                "synthesize_draft", {"run_id": run_id, "format": "markdown"}
            )
            assert as_md.content[0].text.startswith("# the storage engine")
            assert as_md.structured_content["markdown"] == as_md.content[0].text
            verify = await mcp.call_tool("synthesize_verify", {"run_id": run_id})
            assert verify.structured_content["citation_coverage"] == 1.0
            saved = await mcp.call_tool("synthesize_remember", {"run_id": run_id})
            assert not saved.is_error and saved.structured_content["source_id"]
            missing = await mcp.call_tool("synthesize_verify", {"run_id": "nope"})
            assert missing.is_error
            assert missing.structured_content["error"]["reason"] == "not_found"
    finally:
        await backend.close()
        await services.close()
