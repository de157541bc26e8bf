"""An mbox file, plain or compressed, one source per message, in file order.

The checkpoint is the message's position in the file: mbox files grow at
the end, so a resumed read of a file that got new mail still continues with
the first message it had not read.

Why not ``mailbox.mbox``: it needs a seekable file and builds a table of
every message first, so it cannot read an ``.mbox.xz`` (it found no message
in the compressed bytes and said nothing). Messages are split here, in one
pass over the decompressed stream, exactly as ``mailbox.mbox`` splits them
(mboxo/mboxrd): a message starts at a line beginning ``From `` and the blank
line before the next one separates them.
"""

from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from adapters.sources.checkpoints import decode_ordinal, encode
from adapters.sources.compressed import open_file, require_readable_file
from adapters.sources.email_message import message_item
from application.imports.records import ReadItem

__all__ = ["MboxSourceAdapter", "mbox_messages"]


def mbox_messages(stream: BinaryIO) -> Iterator[bytes]:
    """Each message's bytes without its ``From `` line, as ``mailbox.mbox.get_bytes`` gives."""
    lines: list[bytes] | None = None  # text before the first "From " line is no message
    last_was_empty = False
    for line in stream:
        if line.startswith(b"From "):
            if lines is not None:
                yield b"".join(lines[:-1] if last_was_empty else lines)
            lines, last_was_empty = [], False
            continue
        if lines is not None:
            lines.append(line)
        last_was_empty = line == b"\n"
    if lines is not None:
        yield b"".join(lines[:-1] if last_was_empty else lines)


class MboxSourceAdapter:
    """Reads ``mbox`` files (mboxo/mboxrd), plain or xz, gzip, bzip2 or zstd compressed."""

    name = "mbox"

    def check(self, path: Path) -> None:
        require_readable_file(path, "mbox")

    def read(self, path: Path, *, after: str | None = None) -> Iterator[ReadItem]:
        start = 0 if after is None else decode_ordinal(self.name, after) + 1
        with open_file(path, "mbox") as stream:
            for ordinal, raw in enumerate(mbox_messages(stream)):
                if ordinal < start:
                    continue
                yield message_item(
                    raw,
                    record_id=f"{path.name}#{ordinal}",
                    checkpoint=encode(self.name, ordinal),
                    source_uri=f"mbox:{path.name}#{ordinal}",
                    labels=[],
                )
