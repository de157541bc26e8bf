"""A short GIL switch interval while the loop works beside the query model's thread,
so the model's thread takes the interpreter at once when its run ends.

Why it is built this way: docs/decisions/internals.md#applicationretrievalhandoverpy.
The interval is the process's: the first of overlapping holders shortens it, the
last puts back what it was.
"""

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["SHORT_SWITCH_S", "short_switches"]

#: how long a thread waits for the interpreter while the loop works beside the model
SHORT_SWITCH_S = 0.0002

_lock = threading.Lock()
_holders = 0
_before = 0.0


@contextmanager
def short_switches() -> Iterator[None]:
    """The switch interval at ``SHORT_SWITCH_S`` for the block (and while other blocks hold it)."""
    global _holders, _before
    with _lock:
        if _holders == 0:
            _before = sys.getswitchinterval()
            sys.setswitchinterval(SHORT_SWITCH_S)
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0:
                sys.setswitchinterval(_before)
