"""The five named policy suites through the HTTP API, each principal with its own key."""

import pytest

from tests.support.http_driver import HttpDriver
from tests.support.policy_suites import SUITES


@pytest.mark.parametrize("name", sorted(SUITES))
async def test_suite_over_http(name: str) -> None:
    driver = HttpDriver()
    try:
        await SUITES[name](driver)
    finally:
        await driver.close()
