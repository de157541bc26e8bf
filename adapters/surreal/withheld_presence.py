"""Which namespaces hold no redacted source's words, as this process knows it.

Why: docs/decisions/internals.md#adapterssurrealwithheld_presencepy.
"""

from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["WithheldPresence"]


class WithheldPresence:
    """The namespaces this process knows hold no ``withheld_term`` row: a search there
    counts no redacted source without asking the engine.

    Most organisations redact nothing, and the count was one of a search's two engine
    queries (under fifty clients, a queue of its own in the engine). Known only where
    this process is the engine's one writer (``exact``: an embedded engine, whose data
    directory it holds locked); with a server, every search asks. A write of withheld
    words forgets the namespace as it starts (``writing``), and a read marks it only if
    no such write started, ended or was still running while the read ran: a read may run
    in the engine before a write sent earlier commits.
    """

    def __init__(self, *, exact: bool) -> None:
        self._exact = exact
        self._none: set[str] = set()
        #: starts and ends of writes of withheld words, per namespace (what a read compares)
        self._events: dict[str, int] = {}
        #: writes of withheld words not ended yet, per namespace
        self._running: dict[str, int] = {}

    def known_none(self, namespace: str) -> bool:
        return namespace in self._none

    def reading(self, namespace: str) -> int:
        """A token for ``read_none``: the writes' starts and ends so far."""
        return self._events.get(namespace, 0)

    def read_none(self, namespace: str, token: int) -> None:
        """The read that began at ``token`` found no withheld word in the namespace."""
        quiet = self._events.get(namespace, 0) == token and not self._running.get(namespace)
        if self._exact and quiet:
            self._none.add(namespace)

    @contextmanager
    def writing(self, namespace: str, adds: bool = True) -> Iterator[None]:
        """Around a write that may add withheld words to the namespace: it is asked
        again from the write's start, and no read running beside the write marks it.
        ``adds``: whether this write holds withheld words at all (else nothing changes)."""
        if not adds:
            yield
            return
        self._none.discard(namespace)
        self._events[namespace] = self._events.get(namespace, 0) + 1
        self._running[namespace] = self._running.get(namespace, 0) + 1
        try:
            yield
        finally:
            self._running[namespace] -= 1
            self._events[namespace] += 1
