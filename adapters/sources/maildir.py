"""A Maildir tree, one source per message file, folders as labels.

Why not ``mailbox.Maildir`` alone: real trees (Maildir++ with ``.Folder``
names, notmuch's nested folders, messages outside ``cur``/``new``) do not all
have the ``cur``/``new``/``tmp`` triple it requires. Every regular file under
the root is a message, except dot files, ``tmp`` and the metadata files mail
servers leave. The order (and the checkpoint) is the folder and the file's
unique name without its flags, so a message a mail client moved from ``new``
to ``cur`` or flagged between two reads keeps its place.
"""

import os
from collections.abc import Iterator
from pathlib import Path

from adapters.sources.checkpoints import decode_text, encode, refuse
from adapters.sources.compressed import require_folder
from adapters.sources.email_message import message_item
from application.imports.records import ReadItem, SkippedRecord, SkipReason

__all__ = ["MaildirSourceAdapter"]

_NOT_MAIL = frozenset(
    {"dovecot-uidlist", "dovecot-keywords", "dovecot.index", "maildirfolder",
     "courierimapkeywords", "courierimapuiddb", "subscriptions"}
)  # fmt: skip


def _folder(relative_dir: Path) -> str:
    """``bar/baz/cur`` -> ``bar/baz``; ``.Sent.2024/cur`` -> ``Sent/2024``; root -> ``INBOX``."""
    parts = list(relative_dir.parts)
    if parts and parts[-1] in ("cur", "new"):
        parts.pop()
    if len(parts) == 1 and parts[0].startswith("."):
        parts = parts[0][1:].split(".")
    return "/".join(parts) or "INBOX"


def _messages(root: Path) -> list[tuple[str, str, Path]]:
    """(folder, unique name, file) for every message file, in reading order."""
    found: list[tuple[str, str, Path]] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "tmp" and not _hidden_dir(d))
        folder = _folder(Path(dirpath).relative_to(root))
        for filename in filenames:
            if filename.startswith(".") or filename in _NOT_MAIL:
                continue
            found.append((folder, filename.split(":", 1)[0], Path(dirpath, filename)))
    found.sort(key=lambda item: (item[0], item[1], str(item[2])))
    return found


def _hidden_dir(name: str) -> bool:
    """Dot folders are hidden (``.notmuch``), except Maildir++ folders (``.Sent``)."""
    return name.startswith(".") and name in (".", "..", ".notmuch", ".git")


class MaildirSourceAdapter:
    """Reads a Maildir (or Maildir++ / notmuch-style) folder tree."""

    name = "maildir"

    def check(self, path: Path) -> None:
        require_folder(path, "maildir")

    def read(self, path: Path, *, after: str | None = None) -> Iterator[ReadItem]:
        resume = None if after is None else self._position(after)
        require_folder(path, "maildir")
        for folder, unique, file in _messages(path):
            if resume is not None and (folder, unique) <= resume:
                continue
            checkpoint = encode(self.name, f"{folder}/{unique}")
            record_id = file.relative_to(path).as_posix()
            try:
                raw = file.read_bytes()
            except OSError as exc:
                yield SkippedRecord(
                    record_id=record_id,
                    checkpoint=checkpoint,
                    reason=SkipReason.MALFORMED,
                    detail=f"could not read the file: {type(exc).__name__}",
                )
                continue
            yield message_item(
                raw,
                record_id=record_id,
                checkpoint=checkpoint,
                source_uri=f"maildir:{folder}/{unique}",
                labels=[folder],
            )

    def _position(self, token: str) -> tuple[str, str]:
        value = decode_text(self.name, token)
        folder, _, unique = value.rpartition("/")
        if not folder or not unique:
            raise refuse(self.name)
        return folder, unique
