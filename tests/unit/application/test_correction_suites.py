"""The named correction suites in process: the use cases over the reference adapters."""

import pytest

from tests.support.correction_suites import CORRECTION_SUITES, CorrectionDriver
from tests.support.world_driver import WorldDriver


def test_the_driver_meets_the_protocol() -> None:
    driver: CorrectionDriver = WorldDriver()
    assert driver is not None


@pytest.mark.parametrize("name", sorted(CORRECTION_SUITES))
async def test_correction_suite_in_process(name: str) -> None:
    await CORRECTION_SUITES[name](WorldDriver())
