"""The import tools over MCP (stdio, the real store): start in the organisation's import area,
follow, refuse paths outside it and path imports by anyone but an owner."""

import asyncio
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.e2e.test_mcp import Site, _error, _stdio, _tessera
from tests.support import archives

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    data_dir = tmp_path_factory.mktemp("mcp-imports")
    _tessera(data_dir, "admin", "user", "create", "alice", "--role", "owner")
    alice = _tessera(data_dir, "admin", "key", "create", "--principal", "alice").split()[-1]
    _tessera(data_dir, "admin", "user", "create", "carol")
    carol = _tessera(data_dir, "admin", "key", "create", "--principal", "carol").split()[-1]
    _tessera(data_dir, "admin", "org", "create", "rival")
    _tessera(data_dir, "admin", "user", "create", "bob", "--org", "rival", "--role", "owner")
    bob = _tessera(data_dir, "admin", "key", "create", "--org", "rival", "--principal", "bob")
    return Site(data_dir, alice, carol, bob.split()[-1])


async def _until_done(client: Client, import_id: str) -> dict[str, Any]:
    for _ in range(400):
        result = await client.call_tool("source_import_status", {"import_id": import_id})
        assert not result.is_error, result.content
        record: dict[str, Any] = result.structured_content
        if record["status"] not in {"pending", "running"}:
            return record
        await asyncio.sleep(0.1)
    pytest.fail("the import did not finish")


async def test_an_owner_imports_from_the_area_and_follows_it(site: Site, tmp_path: Path) -> None:
    area = site.data_dir / "imports" / "local" / "files"  # the home organisation's files
    area.mkdir(parents=True, exist_ok=True)
    inside = archives.build_mbox(area).path
    outside = archives.build_mbox(tmp_path).path
    async with _stdio(site, site.carol) as client:  # a member: uploads only
        refused = await client.call_tool(
            "source_import_start", {"path": str(inside), "adapter": "mbox"}
        )
        assert _error(refused) == "path_import_not_allowed"
    async with _stdio(site, site.alice) as client:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert tools["source_import_start"].input_schema["required"] == ["path", "adapter"]
        refused = await client.call_tool(
            "source_import_start", {"path": str(outside), "adapter": "mbox"}
        )
        assert _error(refused) == "path_outside_import_root"
        started = await client.call_tool(
            "source_import_start", {"path": str(inside), "adapter": "mbox"}
        )
        assert not started.is_error, started.content
        import_id = started.structured_content["id"]
        done = await _until_done(client, import_id)
        assert done["status"] == "completed"
        assert (done["counters"]["written"], done["counters"]["duplicates"]) == (4, 1)
        listed = await client.call_tool("source_import_list", {})
        assert [item["id"] for item in listed.structured_content["imports"]] == [import_id]
    async with _stdio(site, site.bob) as client:
        other = await client.call_tool("source_import_status", {"import_id": import_id})
        assert _error(other) == "not_found"
