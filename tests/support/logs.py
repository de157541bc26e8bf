"""Capture one Tessera logger's records in a test, whatever earlier tests did to logging.

Start-up code elsewhere in the suite reconfigures logging (handlers, levels,
disabled loggers), so ``caplog`` alone, which listens at the root, can miss a
record; this attaches its handler to the named logger itself for the block.
"""

import logging
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager

import pytest

__all__ = ["captured", "rerank_log"]


@contextmanager
def captured(caplog: pytest.LogCaptureFixture, name: str) -> Iterator[None]:
    logger = logging.getLogger(name)
    disabled, level = logger.disabled, logger.level
    logger.disabled = False
    logger.setLevel(logging.WARNING)
    logger.addHandler(caplog.handler)
    try:
        yield
    finally:
        logger.removeHandler(caplog.handler)
        logger.disabled = disabled
        logger.setLevel(level)


def rerank_log(caplog: pytest.LogCaptureFixture) -> AbstractContextManager[None]:
    return captured(caplog, "tessera.rerank")
