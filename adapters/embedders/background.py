"""One low-priority thread for background model work (the embedding lane's batches).

Why a thread of its own: Linux keeps a nice value per thread, so raising it
for one thread lowers the priority of the work that thread does and of the
threads it starts (onnxruntime's intra-op pool is started by the thread that
creates the session). Requests keep their own threads at normal priority. On
a platform without per-thread priorities the thread simply runs at normal
priority.
"""

import asyncio
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

__all__ = ["BACKGROUND_NICENESS", "BackgroundThread", "lower_this_thread"]

T = TypeVar("T")

#: added to the thread's nice value: it runs when requests leave a core free
BACKGROUND_NICENESS = 10


def lower_this_thread(increment: int = BACKGROUND_NICENESS) -> None:
    """Raise the calling thread's nice value by ``increment`` (Linux: this thread only)."""
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + increment)
    except (AttributeError, OSError):  # not Linux, or not permitted: normal priority
        return


class BackgroundThread:
    """Runs functions one at a time on a single low-priority thread, started on first use."""

    def __init__(self, name: str = "tessera-background") -> None:
        self._name = name
        self._executor: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def _pool(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(
                    max_workers=1, thread_name_prefix=self._name, initializer=lower_this_thread
                )
            return self._executor

    async def run(self, work: Callable[[], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(self._pool(), work)
