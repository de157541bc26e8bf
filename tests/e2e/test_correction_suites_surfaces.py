"""The five named correction suites through HTTP and through MCP, each principal with its key."""

import pytest

from tests.support.correction_suites import CORRECTION_SUITES
from tests.support.http_driver import HttpDriver
from tests.support.json_driver import JsonDriver
from tests.support.mcp_driver import McpDriver


@pytest.mark.parametrize("surface", [HttpDriver, McpDriver], ids=["http", "mcp"])
@pytest.mark.parametrize("name", sorted(CORRECTION_SUITES))
async def test_correction_suite_over_surface(name: str, surface: type[JsonDriver]) -> None:
    driver = surface()
    try:
        await CORRECTION_SUITES[name](driver)
    finally:
        await driver.close()


async def test_an_agent_deletes_a_users_memory_over_mcp_with_a_preview() -> None:
    driver = McpDriver()
    try:
        org = await driver.org("acme")
        ana = await driver.user(org, "ana")
        bot = await driver.agent(org, "bot", ana, delegation_days=5)
        kept = await driver.remember(bot, "the bot's own diary note")
        gone = await driver.remember(ana, "ana's shopping list: figs")
        preview = await driver._act(bot, "memory_delete_preview", {"source_ids": [gone]})
        assert preview["sources"] == 1 and preview["source_ids"] == [gone]
        args = {"source_ids": [gone], "preview_token": preview["preview_token"]}
        done = await driver._act(bot, "memory_delete_apply", args)
        assert done == {"deleted": 1, "source_ids": [gone]}
        assert gone not in {s.source_id for s in await driver.search(ana, "shopping figs")}
        assert kept in {s.source_id for s in await driver.search(bot, "diary note")}
    finally:
        await driver.close()
