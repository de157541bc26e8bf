"""The five named policy suites through the memory workspace's pages, each principal signed in.

Who sees what, page by page: search hits, the context pack and source inspect
show exactly what the policy lets each principal see (users, members, agents
with and without a live delegation), and refused writes leave nothing.
"""

import pytest

from tests.support.policy_suites import SUITES
from tests.support.web_driver import WebDriver


@pytest.mark.parametrize("name", sorted(SUITES))
async def test_suite_over_the_workspace(name: str) -> None:
    driver = WebDriver()
    try:
        await SUITES[name](driver)
    finally:
        await driver.close()
