"""The source adapter port: an archive read as an ordered, resumable stream of records.

Why this shape: an import must survive a crash and a re-run without losing or
doubling anything, so the adapter owes three things the importer cannot
recover on its own: the same order on every read, a dedupe key that does not
change between reads, and after every item a checkpoint from which
``read(path, after=checkpoint)`` yields exactly the items that follow. A bad
item is reported as a ``SkippedRecord`` and the read goes on; only an archive
that cannot be opened at all raises.

Reading is synchronous on purpose: the parsers (``mailbox``, ``email``, JSON)
are, and an importer that runs in an event loop moves whole batches to a
thread. ``contracts/source_adapter.py`` is the suite that proves an adapter.
"""

from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

from application.imports.records import ReadItem

__all__ = ["SourceAdapter"]


class SourceAdapter(Protocol):
    """One archive format (``mbox``, ``maildir``, ``jsonl``, ``chatgpt``, ``markdown`` ...)."""

    #: the name users pick it by (``--adapter mbox``) and import records store
    @property
    def name(self) -> str: ...

    def check(self, path: Path) -> None:
        """A quick look before an import is created, reading at most the archive's start.

        Raises ``NotFoundError`` (``not_found``) as ``read`` does, and
        ``InvalidInputError`` (``unsupported_archive``) for an archive this adapter
        cannot read: a compression or container it does not take, a name that
        promises another compression than the bytes hold.
        """
        ...

    def read(self, path: Path, *, after: str | None = None) -> Iterator[ReadItem]:
        """Every item of the archive at ``path`` in a fixed order, from after ``after``.

        Raises ``NotFoundError`` (``not_found``) when ``path`` does not exist or is
        not of the shape this adapter reads, and ``InvalidInputError``
        (``invalid_checkpoint``) for a checkpoint this adapter did not issue.
        """
        ...
