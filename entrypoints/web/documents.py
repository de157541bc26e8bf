"""A remembered synthesis document read as blocks: headings, cited sentences, gaps.

Why: the document is kept as Markdown whose sentences end in their sources'
ids (``- The ledger replays entries. [01m8...]``); a page shows it as a
reader would, the ids turned into numbered links named by title, not as
Markdown with ids. Pure and line by line, so any text (a redacted or edited
document too) reads: a line it does not know is a plain paragraph. The
template escapes every block's text.
"""

import re

import msgspec

__all__ = ["Block", "blocks"]

#: a citation as the drafter writes it: a source id in brackets at a sentence's end
_CITE = re.compile(r"\[([0-9a-z]{16,40})\]")


class Block(msgspec.Struct, frozen=True, kw_only=True):
    #: title (``#``), heading (``##``), item (``-``), gap (``_..._``) or text
    kind: str
    text: str
    cites: list[str] = msgspec.field(default_factory=list)


def _block(line: str) -> Block:
    if line.startswith("# "):
        return Block(kind="title", text=line[2:].strip())
    if line.startswith("## "):
        return Block(kind="heading", text=line[3:].strip())
    if len(line) > 2 and line.startswith("_") and line.endswith("_"):
        return Block(kind="gap", text=line.strip("_").strip())
    kind, body = ("item", line[2:]) if line.startswith("- ") else ("text", line)
    cites = _CITE.findall(body)
    return Block(kind=kind, text=_CITE.sub("", body).rstrip(), cites=cites)


def blocks(text: str) -> tuple[list[Block], dict[str, int]]:
    """The document's blocks, and each cited source's number in order of first citation."""
    found = [_block(line.strip()) for line in text.splitlines() if line.strip()]
    numbers: dict[str, int] = {}
    for block in found:
        for cite in block.cites:
            numbers.setdefault(cite, len(numbers) + 1)
    return found, numbers
