"""``tessera mcp`` as agents run it: a real process driven by the official MCP client.

Over stdio (key from TESSERA_API_KEY, else the saved owner key) and over
streamable HTTP (bearer key per request), on the real embedded store with the offline embedder: the
tools and their schemas, remember, recall (nothing relevant said in words),
context, inspect, a refused call with its reason code, and a key of another
organisation that sees nothing.
"""

import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.e2e.conftest import ROOT, TESSERA, free_port, start_listening, tessera_env

pytestmark = pytest.mark.slow

TOOLS = {
    "remember",
    "recall",
    "context",
    "inspect_source",
    "list_spaces",
    "access_preview",
    "memory_correct_preview",
    "memory_correct_apply",
    "memory_delete_preview",
    "memory_delete_apply",
    "synthesize_plan",
    "synthesize_draft",
    "synthesize_verify",
    "synthesize_remember",
    "source_import_start",
    "source_import_status",
    "source_import_list",
    "memory_export_preview",
    "memory_export",
    "memory_share_preview",
    "memory_share",
    "reflect",
    "candidates_list",
    "candidate_review",
    "candidates_propose",
    "wake",
}


@dataclass(frozen=True)
class Site:
    data_dir: Path
    alice: str  # members of the home organisation
    carol: str
    bob: str  # the owner of another organisation


def _tessera(data_dir: Path, *args: str) -> str:
    out = subprocess.run(
        [*TESSERA, *args],
        env=tessera_env(data_dir),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    data_dir = tmp_path_factory.mktemp("mcp")
    _tessera(data_dir, "admin", "user", "create", "alice")
    alice = _tessera(data_dir, "admin", "key", "create", "--principal", "alice").split()[-1]
    _tessera(data_dir, "admin", "user", "create", "carol")
    carol = _tessera(data_dir, "admin", "key", "create", "--principal", "carol").split()[-1]
    _tessera(data_dir, "admin", "org", "create", "rival")
    _tessera(data_dir, "admin", "user", "create", "bob", "--org", "rival", "--role", "owner")
    bob = _tessera(data_dir, "admin", "key", "create", "--org", "rival", "--principal", "bob")
    return Site(data_dir, alice, carol, bob.split()[-1])


def _stdio(site: Site, key: str | None) -> Client:
    env = tessera_env(site.data_dir)
    if key is not None:
        env["TESSERA_API_KEY"] = key
    return Client(
        StdioServerParameters(command=sys.executable, args=[*TESSERA[1:], "mcp"], env=env, cwd=ROOT)
    )


def _error(result: Any) -> str:
    assert result.is_error, result.content
    reason: str = result.structured_content["error"]["reason"]
    assert reason in result.content[0].text  # the text says it too, for clients that show text
    return reason


async def _exercise_as_member(client: Client, note: str) -> str:
    """The member's round: tools, remember, recall, context, inspect; returns the source id."""
    listed = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(listed) == TOOLS
    for tool in listed.values():
        assert tool.description and tool.input_schema["type"] == "object"
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
    assert listed["recall"].input_schema["required"] == ["query"]
    assert listed["remember"].annotations is not None
    assert listed["remember"].annotations.read_only_hint is False

    # searchable by meaning too before recall: the relevance gate reads both kinds of evidence
    saved = await client.call_tool(
        "remember", {"content": note, "source_type": "note", "wait": "indexed"}
    )
    assert not saved.is_error, saved.content
    source_id: str = saved.structured_content["source_id"]

    found = await client.call_tool("recall", {"query": "where is the canoe kept", "limit": 3})
    assert not found.is_error
    assert found.structured_content["results"][0]["source_id"] == source_id
    assert note in found.content[0].text  # the JSON result as text as well

    nonsense = await client.call_tool("recall", {"query": "xylophone quantum banana"})
    assert not nonsense.is_error
    assert nonsense.structured_content["results"] == []
    assert nonsense.structured_content["reason"] == "nothing_relevant"
    assert nonsense.structured_content["below_floor"] >= 1
    assert nonsense.content[0].text.startswith("Nothing relevant: nothing in memory shares")

    assert "filters" in listed["recall"].input_schema["properties"]
    narrowed = await client.call_tool(
        "recall", {"query": "canoe", "filters": {"source_type": ["email"]}}
    )
    assert not narrowed.is_error and narrowed.structured_content["results"] == []
    narrowed = await client.call_tool(
        "context", {"query": "canoe", "filters": {"source_type": ["note"]}}
    )
    assert [i["source_id"] for i in narrowed.structured_content["items"]] == [source_id]

    pack = await client.call_tool("context", {"query": "canoe", "token_budget": 200})
    assert not pack.is_error
    assert [i["source_id"] for i in pack.structured_content["items"]] == [source_id]
    assert pack.structured_content["token_count"] <= 200

    view = await client.call_tool("inspect_source", {"source_id": source_id})
    assert view.structured_content["content"] == note
    assert view.structured_content["visible_because"].startswith("private")
    assert len(view.structured_content["derived"]) == 1

    spaces = await client.call_tool("list_spaces", {})
    assert [s["scope"] for s in spaces.structured_content["spaces"]] == ["private"]

    exported = await client.call_tool("memory_export", {"limit": 200})
    assert not exported.is_error, exported.content
    mine = {r["source_id"]: r for r in exported.structured_content["records"]}
    assert mine[source_id]["content"] == note and exported.structured_content["next_after"] is None
    counted = await client.call_tool("memory_export_preview", {})
    assert counted.structured_content["sources"] == len(mine)
    reflected = await client.call_tool("reflect", {"source_ids": [source_id]})
    assert not reflected.is_error and reflected.structured_content["sources"] == 1
    listed_candidates = await client.call_tool("candidates_list", {"state": "pending"})
    assert not listed_candidates.is_error
    missing = await client.call_tool("candidate_review", {"candidate_id": "x", "action": "defer"})
    assert _error(missing) == "not_found"
    woke = await client.call_tool("wake", {"token_budget": 300})
    assert not woke.is_error, woke.content
    assert source_id in {s for i in woke.structured_content["items"] for s in i["source_ids"]}
    assert woke.structured_content["token_count"] <= 300
    return source_id


async def _refusals(client: Client) -> None:
    team = await client.call_tool("remember", {"content": "x", "scope": "team", "scope_key": "t1"})
    assert _error(team) == "scope_disabled"
    preview = await client.call_tool("access_preview", {"space_id": "s1", "principal": "alice"})
    assert _error(preview) in {"not_found", "admin_required"}
    assert _error(await client.call_tool("recall", {"query": "x", "who": "bob"})) == "unknown_field"
    assert _error(await client.call_tool("recall", {"query": "x", "limit": 0})) == (
        "limit_out_of_range"
    )
    bad_date = {"query": "x", "filters": {"occurred_at": {"from": "someday"}}}
    assert _error(await client.call_tool("recall", bad_date)) == "invalid_filter"
    # an empty id is the request's mistake (it was the store's 502)
    assert _error(await client.call_tool("reflect", {"source_ids": [""]})) == "invalid_request"


async def _sees_nothing(client: Client, source_id: str) -> None:
    found = await client.call_tool("recall", {"query": "where is the canoe kept", "limit": 10})
    assert not found.is_error and found.structured_content["results"] == []
    pack = await client.call_tool("context", {"query": "canoe"})
    assert pack.structured_content["items"] == []
    assert _error(await client.call_tool("inspect_source", {"source_id": source_id})) == (
        "not_found"
    )
    exported = await client.call_tool("memory_export", {})
    assert source_id not in {r["source_id"] for r in exported.structured_content["records"]}


async def test_stdio_server_as_the_key_in_the_environment(site: Site) -> None:
    note = "The canoe is kept in the boathouse behind the blue gate."
    async with _stdio(site, site.alice) as client:
        source_id = await _exercise_as_member(client, note)
        await _refusals(client)
    async with _stdio(site, site.bob) as client:
        await _sees_nothing(client, source_id)
    async with _stdio(site, "tsk_nothing_valid") as client:
        assert _error(await client.call_tool("recall", {"query": "canoe"})) == "invalid_api_key"


async def test_stdio_without_a_key_serves_as_the_saved_owner_key(site: Site) -> None:
    async with _stdio(site, None) as client:  # as every other command: the owner on this machine
        spaces = await client.call_tool("list_spaces", {})
        assert not spaces.is_error, spaces.content


def test_stdio_with_no_key_anywhere_exits_with_the_reason(tmp_path: Path) -> None:
    out = subprocess.run(
        [*TESSERA, "mcp"],
        env=tessera_env(tmp_path),  # a fresh data directory: no owner key saved yet
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 2 and "TESSERA_API_KEY" in out.stderr
    assert "Traceback" not in out.stderr and out.stdout == ""


@pytest.fixture
def http_server(site: Site) -> Iterator[str]:
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    proc = start_listening(["mcp", "--http", "--port", str(port)], tessera_env(site.data_dir), url)
    yield url
    proc.terminate()
    assert proc.wait(timeout=30) in (0, -15)
    errors = proc.stdout.read() if proc.stdout else ""
    assert "Traceback" not in errors, errors


def _over_http(url: str, key: str, **headers: str) -> tuple[httpx2.AsyncClient, Client]:
    http = httpx2.AsyncClient(headers={"authorization": f"Bearer {key}", **headers})
    return http, Client(streamable_http_client(url, http_client=http))


async def test_http_server_takes_the_bearer_key_of_each_request(
    site: Site, http_server: str
) -> None:
    http, client = _over_http(http_server, site.carol)
    async with http, client:
        source_id = await _exercise_as_member(client, "Carol's canoe is kept at rack 4.")
        await _refusals(client)
    http, client = _over_http(http_server, site.bob)
    async with http, client:
        await _sees_nothing(client, source_id)
    http, client = _over_http(http_server, site.alice)
    async with http, client:  # same organisation, but carol's private memory
        assert _error(await client.call_tool("inspect_source", {"source_id": source_id})) == (
            "principal_mismatch"
        )
    http, client = _over_http(http_server, site.carol, **{"x-tessera-agent": "someone-else"})
    async with http, client:
        claimed = await client.call_tool("recall", {"query": "canoe"})
        assert _error(claimed) == "agent_identity_required"

    async with httpx.AsyncClient() as plain:
        no_key = await plain.post(
            http_server, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        )
    assert no_key.status_code == 401
    assert no_key.json()["error"]["reason"] == "missing_api_key"


async def test_stdio_goes_through_a_running_service_on_the_same_data(site: Site) -> None:
    port = free_port()
    serve = start_listening(
        ["serve", "--port", str(port)],
        tessera_env(site.data_dir),
        f"http://127.0.0.1:{port}/api/health",
    )
    try:
        async with _stdio(site, site.bob) as client:  # the store is locked by serve
            saved = await client.call_tool("remember", {"content": "Rival's kayak is green."})
            assert not saved.is_error, saved.content
            found = await client.call_tool("recall", {"query": "kayak colour"})
            assert found.structured_content["results"][0]["text"] == "Rival's kayak is green."
            team = {"content": "x", "scope": "team", "scope_key": "t1"}
            assert _error(await client.call_tool("remember", team)) == "scope_disabled"
    finally:
        serve.terminate()
        serve.wait(timeout=30)
