"""A folder of Markdown and text notes (an Obsidian-style vault), one source per file.

The relative path is the source uri and the order (and the checkpoint), so a
note added later sorts into place and a resumed read continues after the
last path it had passed. Front matter (a ``---`` block of YAML at the top) is
read with PyYAML's safe loader into metadata; the stored content is the note
without it. Notes whose front matter is not valid YAML keep it in their text
rather than being dropped. Hidden folders (``.obsidian``, ``.git``) are not
notes.
"""

import os
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import yaml

from adapters.sources.checkpoints import decode_text, encode
from adapters.sources.compressed import require_folder
from adapters.sources.times import parse_time
from application.imports.records import (
    ImportRecord,
    ReadItem,
    SkippedRecord,
    SkipReason,
    content_key,
)
from application.memory.limits import MAX_CONTENT_CHARS
from domain.models import MetadataValue
from domain.scopes import SourceType

__all__ = ["MarkdownSourceAdapter"]

_SUFFIXES = frozenset({".md", ".markdown", ".txt"})
#: front matter keys that give the note's time, first found wins
_TIME_KEYS = ("date", "created", "created_at")


def _notes(root: Path) -> list[str]:
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        for filename in filenames:
            if not filename.startswith(".") and Path(filename).suffix.lower() in _SUFFIXES:
                found.append(Path(dirpath, filename).relative_to(root).as_posix())
    return sorted(found)


class MarkdownSourceAdapter:
    name = "markdown"

    def check(self, path: Path) -> None:
        require_folder(path, "notes")

    def read(self, path: Path, *, after: str | None = None) -> Iterator[ReadItem]:
        resume = None if after is None else decode_text(self.name, after)
        require_folder(path, "notes")
        for relative in _notes(path):
            if resume is not None and relative <= resume:
                continue
            yield _note(path / relative, relative, encode(self.name, relative))


def _skip(record_id: str, checkpoint: str, reason: SkipReason, detail: str) -> SkippedRecord:
    return SkippedRecord(record_id=record_id, checkpoint=checkpoint, reason=reason, detail=detail)


def _note(file: Path, relative: str, checkpoint: str) -> ReadItem:
    try:
        raw = file.read_bytes()
        text = raw.decode("utf-8-sig")
    except OSError as exc:
        return _skip(relative, checkpoint, SkipReason.MALFORMED, type(exc).__name__)
    except UnicodeDecodeError:
        return _skip(relative, checkpoint, SkipReason.MALFORMED, "the file is not UTF-8 text")
    front, body = _split_front_matter(text)
    if not body.strip():
        return _skip(relative, checkpoint, SkipReason.EMPTY, "the note has no text")
    if len(body) > MAX_CONTENT_CHARS:
        return _skip(
            relative,
            checkpoint,
            SkipReason.UNSUPPORTED,
            f"the note is longer than {MAX_CONTENT_CHARS} characters",
        )
    extra = {key: flat for key, value in front.items() if (flat := _flat(value)) is not None}
    title = front.get("title")
    occurred = next((t for k in _TIME_KEYS if (t := _time(front.get(k))) is not None), None)
    if occurred is None:
        occurred = datetime.fromtimestamp(file.stat().st_mtime, tz=UTC)
    folder = Path(relative).parent.as_posix()
    return ImportRecord(
        record_id=relative,
        dedupe_key=content_key(raw),
        checkpoint=checkpoint,
        source_type=SourceType.NOTE,
        source_uri=relative,
        content=body,
        title=title if isinstance(title, str) and title.strip() else _heading(body, file),
        occurred_at=occurred,
        labels=[] if folder == "." else [folder],
        extra={k: v for k, v in extra.items() if k != "title"},
    )


def _split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    if not text.startswith("---"):
        return {}, text
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return {}, text
    for n in range(1, len(lines)):
        if lines[n].strip() in ("---", "..."):
            try:
                loaded = yaml.safe_load("\n".join(lines[1:n]))
            except yaml.YAMLError:
                return {}, text
            if loaded is None:
                loaded = {}
            if not isinstance(loaded, dict):
                return {}, text
            return {str(k): v for k, v in loaded.items()}, "\n".join(lines[n + 1 :]).lstrip("\n")
    return {}, text


def _flat(value: Any) -> MetadataValue:
    """A front matter value as metadata: scalars kept, dates as ISO text, lists as text."""
    if isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, list):
        return [str(v) for v in value if isinstance(v, bool | int | float | str | date)]
    return None


def _time(value: Any) -> datetime | None:
    if isinstance(value, date) and not isinstance(value, datetime):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    return parse_time(value)


def _heading(body: str, file: Path) -> str:
    for line in body.split("\n"):
        if line.startswith("# "):
            return line[2:].strip() or file.stem
    return file.stem
