"""The lane's model work runs below requests: a low-priority thread and its own session.

Linux keeps a nice value per thread; the background thread raises its own, and
the ONNX embedder runs the lane's batches (``BACKGROUND`` set) there on a twin
session, with the same vectors as the request path.
"""

import os
import sys
import threading

import pytest

from adapters.embedders.background import BACKGROUND_NICENESS, BackgroundThread
from adapters.embedders.onnx_minilm import OnnxEmbedder
from application.enrichment.priority import BACKGROUND


def _nice() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


@pytest.mark.skipif(sys.platform != "linux", reason="per-thread nice values are Linux's")
async def test_the_background_thread_runs_at_a_lower_priority_than_its_caller() -> None:
    here = _nice()
    there = await BackgroundThread("test-background").run(_nice)
    assert there == min(here + BACKGROUND_NICENESS, 19)
    assert _nice() == here  # the caller's own thread is untouched


@pytest.mark.slow
async def test_background_onnx_calls_use_the_twin_session_with_the_same_vectors() -> None:
    embedder = OnnxEmbedder()
    texts = ["the lighthouse keeper logs storms", "orange kayak on the lake"]
    foreground = await embedder.embed(texts)
    mark = BACKGROUND.set(True)
    try:
        background = await embedder.embed(texts)
    finally:
        BACKGROUND.reset(mark)
    assert embedder._twin is not None and embedder._twin._session is not None
    for a, b in zip(foreground, background, strict=True):
        assert max(abs(x - y) for x, y in zip(a, b, strict=True)) < 1e-5
