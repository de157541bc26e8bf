"""Marks the embedding lane's work as background, so an embedder may run it below requests.

Why: the lane embeds on the same cores that serve searches and remembers; a
remember's p95 rose with the lane busy (benchmarks/RESULTS.md). The lane sets ``BACKGROUND`` in
its own task (tasks it starts
and threads it hands work to inherit it); an embedder that can lower a
thread's priority (``adapters/embedders/background.py``) runs such calls on
a low-priority thread, and every other embedder simply ignores the mark.
"""

from contextvars import ContextVar

__all__ = ["BACKGROUND"]

#: True inside the embedding lane's worker: the model's work may wait for requests
BACKGROUND: ContextVar[bool] = ContextVar("tessera_background_embedding", default=False)
