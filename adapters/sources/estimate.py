"""How many items an archive holds, roughly and cheaply: the total of a progress bar.

Why apart from the adapters: a progress bar wants a total before the import
reads anything, and counting lines, ``From `` separators or files costs a
fraction of parsing them. The count includes items the import will skip, so
the bar can end a little short; it is an estimate for an ETA, never a counter.
"""

import os
from pathlib import Path

import msgspec

from adapters.sources.compressed import open_decompressed
from adapters.sources.maildir import _messages
from adapters.sources.markdown import _notes
from domain.errors import TesseraError

__all__ = ["estimate_items"]


def _lines(path: Path, prefix: bytes) -> int:
    """Lines that start with ``prefix`` (decompressed as the reader does), blank ones aside."""
    count = 0
    with open_decompressed(path) as file:
        for line in file:
            if line.startswith(prefix) and line.strip():
                count += 1
    return count


def estimate_items(adapter: str, path: Path) -> int | None:
    """The item count of the archive at ``path`` for ``adapter``; None when unknown."""
    try:
        if adapter == "jsonl" and path.is_file():
            return _lines(path, b"")
        if adapter == "mbox" and path.is_file():
            return _lines(path, b"From ")
        if adapter == "maildir" and path.is_dir():
            return len(_messages(path))
        if adapter == "markdown" and path.is_dir():
            return len(_notes(path))
        if adapter == "chatgpt":
            file = path / "conversations.json" if path.is_dir() else path
            if os.path.getsize(file) <= 512 * 1024 * 1024:
                with open_decompressed(file) as stream:
                    items = msgspec.json.decode(stream.read())
                return len(items) if isinstance(items, list) else None
    except (OSError, msgspec.DecodeError, TesseraError):
        return None  # the import itself says what is wrong with the archive
    return None
