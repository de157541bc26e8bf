"""An mbox file, one source per message, in file order.

The checkpoint is the message's position in the file: mbox files grow at
the end, so a resumed read of a file that got new mail still continues with
the first message it had not read.
"""

import mailbox
from collections.abc import Iterator
from pathlib import Path

from adapters.sources.checkpoints import decode_ordinal, encode, require_file
from adapters.sources.email_message import message_item
from application.sources.records import ReadItem, SkippedRecord, SkipReason

__all__ = ["MboxSourceAdapter"]


class MboxSourceAdapter:
    """Reads ``mbox`` files (mboxo/mboxrd as Python's ``mailbox`` does)."""

    name = "mbox"

    def read(self, path: Path, *, after: str | None = None) -> Iterator[ReadItem]:
        start = 0 if after is None else decode_ordinal(self.name, after) + 1
        require_file(path, "mbox")
        box = mailbox.mbox(path, create=False)
        try:
            for ordinal, key in enumerate(box.iterkeys()):
                if ordinal < start:
                    continue
                checkpoint = encode(self.name, ordinal)
                record_id = f"{path.name}#{ordinal}"
                try:
                    raw = box.get_bytes(key)
                except (OSError, KeyError) as exc:
                    yield SkippedRecord(
                        record_id=record_id,
                        checkpoint=checkpoint,
                        reason=SkipReason.MALFORMED,
                        detail=f"could not read the message: {type(exc).__name__}",
                    )
                    continue
                yield message_item(
                    raw,
                    record_id=record_id,
                    checkpoint=checkpoint,
                    source_uri=f"mbox:{path.name}#{ordinal}",
                    labels=[],
                )
        finally:
            box.close()
