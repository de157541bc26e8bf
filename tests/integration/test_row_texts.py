"""The ranker texts held as one mapped blob: decoded per row, written through, emptied."""

from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest

from adapters.inprocess import row_texts
from adapters.inprocess.row_texts import RowTexts, read_blob
from application.ports.records import IndexedText
from domain.ranking.marks import TextMarks, text_marks


def _text(n: int) -> IndexedText:
    text = f"I have words of row {n} \u00e9\u6f22" if n % 2 else f"the words written in row {n}"
    return IndexedText(
        chunk_id=f"c{n}",
        source_id=f"s{n // 2}",
        text=text,
        role="user" if n % 2 else None,
        turn_index=n if n % 3 else None,
        occurred_at=datetime(2026, 1, 1, tzinfo=timezone(timedelta(hours=2))) if n % 2 else None,
        speaker="Ada" if n == 3 else None,
        marks=text_marks(text),
    )


def _blob(tmp_path: Path, texts: RowTexts, size: int) -> RowTexts:
    path = tmp_path / "texts.bin"
    offsets = np.zeros(size + 1, dtype=np.int64)
    with path.open("wb") as out:
        for row, record in enumerate(texts.records(size)):
            out.write(record)
            offsets[row + 1] = out.tell()
    return RowTexts(read_blob(path), offsets)


def test_rows_round_trip_through_the_blob_and_later_rows_are_held(tmp_path: Path) -> None:
    live = RowTexts()
    for n in range(6):
        live.append(_text(n))
    mapped = _blob(tmp_path, live, 6)
    assert mapped.base_rows == 6 and mapped.held_rows() == 0
    assert list(mapped) == [_text(n) for n in range(6)]
    assert mapped[1].occurred_at is not None and mapped[1].occurred_at.utcoffset() == timedelta(
        hours=2
    )
    mapped.append(_text(6))
    mapped.clear(2)
    mapped.clear(6)
    assert mapped[2] == IndexedText(
        chunk_id="c2", source_id="s1", text="", marks=TextMarks(first_person=False, short=True)
    )
    assert [t.marks for t in mapped][:2] == [
        TextMarks(first_person=False, short=False),
        TextMarks(first_person=True, short=False),
    ]
    assert mapped[6].text == "" and len(mapped) == 7 and mapped.held_rows() == 2
    with pytest.raises(IndexError):
        mapped[7]
    again = _blob(tmp_path / "..", mapped, 7)
    assert list(again) == list(mapped)


def test_a_frozen_view_does_not_see_later_writes(tmp_path: Path) -> None:
    live = RowTexts()
    for n in range(3):
        live.append(_text(n))
    mapped = _blob(tmp_path, live, 3)
    mapped.append(_text(3))
    frozen = mapped.frozen(4)
    mapped.append(_text(4))
    mapped.clear(0)
    assert list(frozen) == [_text(n) for n in range(4)]


def test_offsets_past_the_blob_are_refused(tmp_path: Path) -> None:
    (tmp_path / "texts.bin").write_bytes(b"\x90")
    with pytest.raises(ValueError):
        RowTexts(read_blob(tmp_path / "texts.bin"), np.asarray([0, 5], dtype=np.int64))
    assert len(RowTexts(read_blob(tmp_path / "texts.bin"), None)) == 0


def test_a_row_read_again_is_not_decoded_again_until_it_is_cleared(tmp_path: Path) -> None:
    live = RowTexts()
    for n in range(4):
        live.append(_text(n))
    mapped = _blob(tmp_path, live, 4)
    first = mapped[1]
    assert mapped[1] is first and first == _text(1)
    mapped.clear(1)
    assert mapped[1].text == "" and mapped[1].chunk_id == "c1"
    assert mapped.frozen(4)[2] == _text(2)


def test_the_rows_kept_decoded_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(row_texts, "DECODED_ROWS", 2)
    live = RowTexts()
    for n in range(3):
        live.append(_text(n))
    mapped = _blob(tmp_path, live, 3)
    kept = [mapped[0], mapped[1]]
    assert mapped[0] is kept[0]  # row 0 read last: row 1 is the least recently read
    third = mapped[2]
    assert mapped[0] is kept[0] and mapped[2] is third
    assert mapped[1] is not kept[1] and mapped[1] == kept[1]  # dropped, decoded again
