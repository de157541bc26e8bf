"""What the ranker reads of each row, held as one encoded blob rather than Python objects.

Why: an ``IndexedText`` per row (a struct, its text, its ids, its datetime)
cost ~850 bytes of anonymous memory a row (85 MB per 100k chunks), yet a
search reads the texts of only its ~150 candidates. A restored index keeps
the rows a snapshot holds as one blob of msgpack records (``texts.bin``,
mapped read-only from the snapshot: file-backed, paged in as candidates are
read) and an int64 offsets array; a row is decoded when asked for. Rows
written after the restore (or in an index never restored) are kept as
objects in ``tail``; a row whose source is removed is kept, emptied, in
``cleared``, never by changing the blob.

The records are plain tuples (chunk id, source id, text, role, turn index,
the moment as ISO text with its offset, speaker), so ``snapshot_format`` can
copy a row's bytes from one snapshot to the next without decoding it.
"""

import mmap
from collections import OrderedDict
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import msgspec
import numpy as np

from application.ports.records import IndexedText
from domain.ranking.marks import text_marks

__all__ = ["Record", "RowTexts", "encode_text", "read_blob"]

#: chunk id, source id, text, role, turn index, occurred (ISO: offset kept), speaker
Record = tuple[str, str, str, str | None, int | None, str | None, str | None]

_ENCODER = msgspec.msgpack.Encoder()
_DECODER = msgspec.msgpack.Decoder(Record)
_EMPTY = b""
#: decoded rows kept, the least recently read dropped first: a search reads ~150
#: candidates, many of them the last searches' too, and decoding one costs ~6 µs
#: (~0.7 ms a search at 10k rows). 4,096 rows of ~850 bytes: ~3.5 MB
DECODED_ROWS = 4096


def encode_text(t: IndexedText) -> bytes:
    moment = None if t.occurred_at is None else t.occurred_at.isoformat()
    return _ENCODER.encode(
        (t.chunk_id, t.source_id, t.text, t.role, t.turn_index, moment, t.speaker)
    )


def _decode(data: bytes) -> IndexedText:
    chunk_id, source_id, text, role, turn_index, moment, speaker = _DECODER.decode(data)
    return IndexedText(
        chunk_id=chunk_id,
        source_id=source_id,
        text=text,
        role=role,
        turn_index=turn_index,
        occurred_at=None if moment is None else datetime.fromisoformat(moment),
        speaker=speaker,
        # not in the record (worked out from the text as a written row's are): a snapshot
        # of an older release reads the same
        marks=text_marks(text),
    )


def read_blob(path: Path) -> mmap.mmap | bytes:
    """The file mapped read-only (an empty file cannot be mapped: its bytes instead)."""
    with path.open("rb") as f:
        if path.stat().st_size == 0:
            return _EMPTY
        blob = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    blob.madvise(mmap.MADV_RANDOM)  # candidates are scattered: no read-ahead around them
    return blob


class RowTexts:
    """Row ``r``'s ``IndexedText``: decoded from the blob below ``base_rows``, else held."""

    def __init__(self, blob: mmap.mmap | bytes = _EMPTY, offsets: np.ndarray | None = None) -> None:
        self._blob = blob
        self._offsets = np.zeros(1, dtype=np.int64) if offsets is None else offsets
        if self._offsets[-1] > len(blob) or np.any(np.diff(self._offsets) < 0):
            raise ValueError("the text offsets do not fit the text blob")
        self.base_rows = len(self._offsets) - 1
        #: rows past the blob, in row order
        self.tail: list[IndexedText] = []
        #: rows of the blob emptied since (their source removed)
        self.cleared: dict[int, IndexedText] = {}
        #: rows of the blob decoded lately (read by the event loop's thread only)
        self._decoded: OrderedDict[int, IndexedText] = OrderedDict()

    def __len__(self) -> int:
        return self.base_rows + len(self.tail)

    def __getitem__(self, row: int) -> IndexedText:
        if row < 0 or row >= len(self):
            raise IndexError(row)
        if row >= self.base_rows:
            return self.tail[row - self.base_rows]
        held = self.cleared.get(row)
        if held is not None:
            return held
        decoded = self._decoded.get(row)
        if decoded is not None:
            self._decoded.move_to_end(row)
            return decoded
        decoded = self._decoded[row] = _decode(self._raw(row))
        if len(self._decoded) > DECODED_ROWS:
            self._decoded.popitem(last=False)
        return decoded

    def _raw(self, row: int) -> bytes:
        return bytes(self._blob[int(self._offsets[row]) : int(self._offsets[row + 1])])

    def append(self, text: IndexedText) -> None:
        self.tail.append(text)

    def clear(self, row: int) -> None:
        """Row ``row`` keeps its ids and loses its text (its source was removed)."""
        old = self[row]
        empty = IndexedText(
            chunk_id=old.chunk_id, source_id=old.source_id, text="", marks=text_marks("")
        )
        if row >= self.base_rows:
            self.tail[row - self.base_rows] = empty
        else:
            self.cleared[row] = empty
            self._decoded.pop(row, None)

    def frozen(self, size: int) -> "RowTexts":
        """A view of rows ``[0, size)`` that later writes to this one do not change."""
        copy = RowTexts.__new__(RowTexts)
        copy._blob, copy._offsets, copy.base_rows = self._blob, self._offsets, self.base_rows
        copy.tail = self.tail[: max(size - self.base_rows, 0)]
        copy.cleared = dict(self.cleared)
        copy._decoded = OrderedDict()
        return copy

    def records(self, size: int) -> Iterator[bytes]:
        """Each row's encoded record, rows ``[0, size)``: the blob's bytes copied as they are."""
        for row in range(min(size, self.base_rows)):
            held = self.cleared.get(row)
            yield self._raw(row) if held is None else encode_text(held)
        for text in self.tail[: max(size - self.base_rows, 0)]:
            yield encode_text(text)

    def held_rows(self) -> int:
        """Rows held as objects (the rest are decoded from the blob when read)."""
        return len(self.tail) + len(self.cleared)

    def mapped_bytes(self) -> int:
        return len(self._blob)

    def offsets_bytes(self) -> int:
        return int(self._offsets.nbytes)
