"""An upload's format told from its content: each sample archive, renamed to say nothing."""

import gzip
import shutil
from pathlib import Path

from adapters.sources.sniff import sniff_format
from tests.support import archives


def _renamed(path: Path, name: str) -> Path:
    moved = path.with_name(name)
    path.rename(moved)
    return moved


def test_each_format_is_told_from_what_the_file_or_folder_holds(tmp_path: Path) -> None:
    assert sniff_format(_renamed(archives.build_mbox(tmp_path).path, "download")) == "mbox"
    assert sniff_format(_renamed(archives.build_jsonl(tmp_path).path, "chats.bin")) == "jsonl"
    assert sniff_format(_renamed(archives.build_maildir(tmp_path).path, "box")) == "maildir"
    assert sniff_format(_renamed(archives.build_markdown(tmp_path).path, "stuff")) == "markdown"
    export = archives.build_chatgpt(tmp_path).path
    assert sniff_format(export) == "chatgpt"  # the export's folder
    assert sniff_format(export / "conversations.json") == "chatgpt"  # or its file alone


def test_a_compressed_file_is_told_from_what_it_holds(tmp_path: Path) -> None:
    mbox = archives.build_mbox(tmp_path).path
    packed = tmp_path / "archive"
    with mbox.open("rb") as plain, gzip.open(packed, "wb") as out:
        shutil.copyfileobj(plain, out)
    assert sniff_format(packed) == "mbox"


def test_what_says_nothing_is_none(tmp_path: Path) -> None:
    (tmp_path / "odd.bin").write_bytes(b"\x00\x01 nothing known")
    (tmp_path / "object.json").write_bytes(b'{"a": 1}\n')
    (tmp_path / "fake.gz").write_bytes(b"not gzip at all")
    (tmp_path / "empty").mkdir()
    for name in ("odd.bin", "object.json", "fake.gz", "empty", "absent"):
        assert sniff_format(tmp_path / name) is None, name
