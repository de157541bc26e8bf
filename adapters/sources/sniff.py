"""Which import format an archive holds: told by its name, else by its content.

Why: a file saved as ``export.bin`` or ``download`` is still a mailbox or a
ChatGPT export, and a person should not have to know which to pick. Only the
start of a file is read (decompressed as its bytes say), and a folder is
told by what lies in it. The answer is a guess the reader still checks: a
wrong one ends as an import that read nothing, with a warning, as a wrong
choice from the menu does.
"""

import os
from collections.abc import Collection
from pathlib import Path

import msgspec

from adapters.sources.compressed import open_decompressed
from domain.errors import InvalidInputError

__all__ = ["format_by_name", "format_of", "sniff_format"]

#: an archive's name -> the format that reads it, when the name says so (compression
#: suffixes are read through: ``mail.mbox.gz`` is a mailbox)
_FORMAT_HINTS = (
    ("chatgpt", "chatgpt"),
    ("conversations", "chatgpt"),
    ("maildir", "maildir"),
    (".mbox", "mbox"),
    (".mbx", "mbox"),
    (".jsonl", "jsonl"),
    (".ndjson", "jsonl"),
    (".md", "markdown"),
    (".markdown", "markdown"),
    ("notes", "markdown"),
)
_COMPRESSED = (".gz", ".xz", ".bz2", ".zst", ".zip", ".tar", ".tgz")
#: enough of a file to hold a ChatGPT conversation's first keys or a JSONL line
_HEAD = 1 << 16
_NOTES = (".md", ".markdown", ".txt")
#: folders a tool keeps for itself: what lies in them is not what was exported
_NOT_CONTENT = frozenset({".git", ".obsidian", ".notmuch", "__MACOSX"})
#: how many entries of a folder are looked at before it is said to hold no known format
_LOOK_AT = 2000


def format_by_name(filename: str, known: Collection[str]) -> str | None:
    """The import format an archive's name points at, among ``known``; None if it does not say."""
    name = filename.lower()
    while name.endswith(_COMPRESSED):
        name = name[: name.rfind(".")]
    for hint, adapter in _FORMAT_HINTS:
        found = name.endswith(hint) if hint.startswith(".") else hint in name
        if found and adapter in known:
            return adapter
    return None


def format_of(path: Path, known: Collection[str]) -> str | None:
    """By the name, else by the content; None when neither says one of ``known``."""
    found = format_by_name(path.name, known) or sniff_format(path)
    return found if found in known else None


def sniff_format(path: Path) -> str | None:
    """``mbox``, ``jsonl``, ``chatgpt``, ``maildir``, ``markdown``, or None when unsure."""
    if path.is_dir():
        return _folder_format(path)
    if path.is_file():
        return _file_format(path)
    return None


def _head(path: Path) -> bytes:
    try:
        with open_decompressed(path) as stream:
            return stream.read(_HEAD)
    except (InvalidInputError, OSError):
        return b""


def _file_format(path: Path) -> str | None:
    head = _head(path).removeprefix(b"\xef\xbb\xbf").lstrip()
    if head.startswith(b"From "):
        return "mbox"  # an mbox message starts with its "From " separator line
    if head.startswith(b"[") and b'"mapping"' in head:
        return "chatgpt"  # a list of conversations, each a tree under "mapping"
    if head.startswith(b"{"):
        first = head.split(b"\n", 1)[0]
        try:
            line = msgspec.json.decode(first)
        except msgspec.DecodeError:
            return None
        if isinstance(line, dict) and "messages" in line:
            return "jsonl"
    return None


def _folder_format(root: Path) -> str | None:
    if any(root.glob("conversations.json*")):
        return "chatgpt"
    notes = False
    seen = 0
    for _folder, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if d not in _NOT_CONTENT]
        if {"cur", "new"} & set(dirnames):
            return "maildir"
        notes = notes or any(f.lower().endswith(_NOTES) for f in filenames)
        seen += len(filenames) + len(dirnames)
        if seen > _LOOK_AT:
            break
    return "markdown" if notes else None
