"""An archive's format told from its name, else from its content (each sample renamed)."""

import gzip
import shutil
from pathlib import Path

import pytest

from adapters.sources.sniff import format_by_name, format_of, sniff_format
from tests.support import archives

_KNOWN = ["chatgpt", "jsonl", "maildir", "markdown", "mbox"]


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


@pytest.mark.parametrize(
    ("name", "adapter"),
    [
        ("Inbox.mbox", "mbox"),
        ("archive.mbox.gz", "mbox"),
        ("chatgpt-export.zip", "chatgpt"),
        ("conversations.json", "chatgpt"),
        ("events.jsonl.zst", "jsonl"),
        ("my-maildir.tar.gz", "maildir"),
        ("README.md", "markdown"),
        ("photo.png", None),
        ("archive.zip", None),
    ],
)
def test_the_import_format_from_the_files_name(name: str, adapter: str | None) -> None:
    assert format_by_name(name, _KNOWN) == adapter


def test_a_format_the_service_lacks_is_not_guessed() -> None:
    assert format_by_name("Inbox.mbox", ["jsonl"]) is None


def test_the_name_is_asked_first_then_the_content(tmp_path: Path) -> None:
    mbox = archives.build_mbox(tmp_path).path
    assert format_of(mbox, _KNOWN) == "mbox"
    assert format_of(_renamed(mbox, "download"), _KNOWN) == "mbox"
    assert format_of(tmp_path / "download", ["jsonl"]) is None  # not one the caller knows
