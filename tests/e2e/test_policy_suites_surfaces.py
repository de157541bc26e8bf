"""The five named policy suites through HTTP and through MCP, each principal with its own key."""

import pytest

from tests.support.http_driver import HttpDriver
from tests.support.json_driver import JsonDriver
from tests.support.mcp_driver import McpDriver
from tests.support.policy_suites import SUITES


@pytest.mark.parametrize("surface", [HttpDriver, McpDriver], ids=["http", "mcp"])
@pytest.mark.parametrize("name", sorted(SUITES))
async def test_suite_over_surface(name: str, surface: type[JsonDriver]) -> None:
    driver = surface()
    try:
        await SUITES[name](driver)
    finally:
        await driver.close()
