"""The store's change sequence: what a derived index reads to catch up after a restart.

Why: the in-process index is a cache of the store. A snapshot of it records
the position it reflects; on the next start it reads only the sources that
changed after that position instead of rebuilding from every chunk. Every
write that changes what an index holds (chunks saved, vectors attached, a
source corrected, redacted or deleted) advances a per-organisation sequence in
the same transaction and stamps the changed source with it, so a source
changed twice is read once, at its latest state.

``epoch`` names one life of the organisation's sequence: it changes when the
organisation is dropped and created again, so a snapshot of the old one is
never caught up against the new one.
"""

import msgspec

__all__ = ["ChangePosition", "SourceChanges"]


class ChangePosition(msgspec.Struct, frozen=True, kw_only=True):
    """Where an organisation's change sequence stands (epoch "" and 0: never written)."""

    epoch: str = ""
    sequence: int = 0

    def __post_init__(self) -> None:
        if self.sequence < 0:
            raise ValueError("sequence must be >= 0")


class SourceChanges(msgspec.Struct, frozen=True, kw_only=True):
    """Sources whose latest change came after a position, oldest change first.

    ``changes`` pairs each source id with the sequence of its latest change;
    ``position`` is the organisation's position when they were read (a page
    ends at ``changes[-1]``'s sequence, not necessarily at ``position``).
    """

    position: ChangePosition
    changes: tuple[tuple[int, str], ...] = ()

    @property
    def last(self) -> int:
        """The sequence this page reaches (the caller's next ``after``)."""
        return self.changes[-1][0] if self.changes else self.position.sequence
