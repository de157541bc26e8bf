"""The five named policy suites, in process: the use cases over the reference adapters.

The same suites (tests.support.policy_suites) are meant to run through HTTP
and MCP with another driver; here every surface label is tried, since the
policy is one set of rules for all of them.
"""

import pytest

from domain.policy import Surface
from tests.support.policy_suites import SUITES, Driver
from tests.support.world_driver import WorldDriver


def test_the_driver_meets_the_protocol() -> None:
    driver: Driver = WorldDriver()
    assert driver is not None


@pytest.mark.parametrize("name", sorted(SUITES))
async def test_suite_in_process(name: str) -> None:
    await SUITES[name](WorldDriver())


@pytest.mark.parametrize("surface", [Surface.CLI, Surface.MCP, Surface.WEB, Surface.JOB])
@pytest.mark.parametrize("name", sorted(SUITES))
async def test_suite_on_every_surface_label(name: str, surface: Surface) -> None:
    await SUITES[name](WorldDriver(surface=surface))
