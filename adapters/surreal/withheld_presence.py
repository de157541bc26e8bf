"""Which namespaces hold no redacted source's words, as this process knows it.

Why: docs/decisions/internals.md#adapterssurrealwithheld_presencepy.
"""

__all__ = ["WithheldPresence"]


class WithheldPresence:
    """The namespaces this process knows hold no ``withheld_term`` row: a search there
    counts no redacted source without asking the engine.

    Most organisations redact nothing, and the count was one of a search's two engine
    queries (under fifty clients, a queue of its own in the engine). Known only where
    this process is the engine's one writer (``exact``: an embedded engine, whose data
    directory it holds locked); with a server, every search asks. A read marks a
    namespace only if no write of withheld words began while it ran: each such write
    forgets the namespace before it is sent (``writing``).
    """

    def __init__(self, *, exact: bool) -> None:
        self._exact = exact
        self._none: set[str] = set()
        #: writes of withheld words begun, per namespace (what a read compares)
        self._writes: dict[str, int] = {}

    def known_none(self, namespace: str) -> bool:
        return namespace in self._none

    def reading(self, namespace: str) -> int:
        """A token for ``read_none``: the writes begun so far."""
        return self._writes.get(namespace, 0)

    def read_none(self, namespace: str, token: int) -> None:
        """The read that began at ``token`` found no withheld word in the namespace."""
        if self._exact and self._writes.get(namespace, 0) == token:
            self._none.add(namespace)

    def writing(self, namespace: str) -> None:
        """Withheld words may be written to the namespace: it is asked again from now."""
        self._none.discard(namespace)
        self._writes[namespace] = self._writes.get(namespace, 0) + 1
