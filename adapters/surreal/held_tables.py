"""Values built from an organisation's derived graph, held in process for a short while.

Why one holder: the derived records' vectors (``vector_matrix``) and full text
(``lexical_cache``) follow the same freshness rule, so it lives in one place:
dropped at this process's writes to a namespace's graph (``forget``), and in
any case after ``ttl`` seconds (another process's writes are seen within that
time).
"""

import time
from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["HeldTables"]


class HeldTables:
    """Per (namespace, table, ...) values built from the store and kept for ``ttl`` seconds,
    dropped at this process's writes to a namespace (``forget``)."""

    def __init__(self, ttl: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        self._ttl = ttl
        self._clock = clock
        self._held: dict[tuple[str, ...], tuple[float, Any]] = {}
        #: bumped by every ``forget``: a load that a write overtook is used once, not kept
        self._generation: dict[str, int] = {}

    async def get(self, key: tuple[str, ...], load: Callable[[float], Awaitable[Any]]) -> Any:
        """What ``load(now)`` built for ``key`` (its first part: the namespace), built again
        when missing or older than the ttl."""
        now = self._clock()
        for stale in [k for k, (made, _) in self._held.items() if now - made > self._ttl]:
            del self._held[stale]
        held = self._held.get(key)
        if held is not None:
            return held[1]
        generation = self._generation.get(key[0], 0)
        value = await load(now)
        if self._generation.get(key[0], 0) == generation:
            self._held[key] = (now, value)
        return value

    def forget(self, namespace: str) -> None:
        """The namespace's graph changed: its values are built again next time."""
        self._generation[namespace] = self._generation.get(namespace, 0) + 1
        for key in [k for k in self._held if k[0] == namespace]:
            del self._held[key]
