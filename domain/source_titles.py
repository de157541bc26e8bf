"""A source named in words: its title, subject or first words, and who wrote it.

Why: pages named sources by id ("private/01m8h3brs0…", "source 1"). A person
recognises a note by its first words, a mail by its subject and sender, a
conversation by its first line. Pure: it reads only what the source holds.
"""

import re

from domain.models import MetadataValue

__all__ = ["TITLE_CHARS", "metadata_words", "source_author", "source_title"]

#: a title is one line of at most this many characters
TITLE_CHARS = 80


#: a Markdown heading's marks ("# ", "## "): a document's first line names it without them
_HEADING = re.compile(r"^#{1,6}\s+")


def _line(text: str) -> str:
    flat = " ".join(text.split())
    if len(flat) <= TITLE_CHARS:
        return flat
    cut = flat.rfind(" ", 0, TITLE_CHARS)
    return flat[: cut if cut > TITLE_CHARS // 2 else TITLE_CHARS - 1] + "…"


def source_title(content: str, metadata: dict[str, MetadataValue]) -> str:
    """The metadata's title (a mail's subject, a document's title), else the first
    line of the text that says something (quoted mail lines left aside)."""
    title = metadata.get("title")
    if isinstance(title, str) and title.strip():
        return _line(title)
    lines = [line.strip() for line in content.splitlines() if line.strip()]
    said = [line for line in lines if not line.startswith(">")]
    return _line(_HEADING.sub("", (said or lines or [""])[0]))


def _name(address: str) -> str:
    """``Mikhail Gusarov <m@x.org>`` -> ``Mikhail Gusarov``; a bare address stays."""
    name, _, rest = address.partition("<")
    name = name.strip().strip('"').strip()
    return name or rest.rstrip(">").strip() or address.strip()


def source_author(metadata: dict[str, MetadataValue]) -> str | None:
    """Who wrote it, by name, where its metadata says (a mail's sender)."""
    sender = metadata.get("from")
    first = sender[0] if isinstance(sender, list) and sender else sender
    return _name(first) if isinstance(first, str) and first.strip() else None


def metadata_words(value: MetadataValue) -> str:
    """A metadata value as a person reads it: a list as comma-separated items."""
    if isinstance(value, list):
        return ", ".join(value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return "" if value is None else f"{value}"
