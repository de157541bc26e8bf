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
