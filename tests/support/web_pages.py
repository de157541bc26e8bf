"""Reading the workspace's pages as a person would: items, their links, spaces and text.

A small ``html.parser`` walk (no browser): each ``li.hit`` / ``li.item`` is one
search hit / pack item; its ``a.open`` link names its own source, other
``/memory/sources/<id>`` links the sources it names (superseded by ...); a source page's
facts begin at ``.source-head`` (or its ``#source-id``); ``.space``
names the space in ``data-scope`` / ``data-key`` (its text is the words a person
reads); ``.text`` and ``pre.content`` hold the memory text.
"""

from dataclasses import dataclass, field
from html.parser import HTMLParser

__all__ = ["Item", "Page", "read_page"]

_PREFIX = "/memory/sources/"


@dataclass
class Item:
    kind: str
    source_ids: list[str] = field(default_factory=list)
    space: str = ""
    text: str | None = None


@dataclass
class Page:
    hits: list[Item] = field(default_factory=list)
    pack: list[Item] = field(default_factory=list)
    #: the source page's own facts, as one item
    source: Item | None = None
    #: an error page's reason code
    reason: str | None = None


class _Walk(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.page = Page()
        self.current: Item | None = None
        self.stack: list[tuple[str, set[str], str | None]] = []
        self.capture: str | None = None
        self.buffer: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        classes = set((found.get("class") or "").split())
        ident = found.get("id")
        if tag == "li" and classes & {"hit", "item"}:
            self.current = Item("hit" if "hit" in classes else "item")
        if "source-head" in classes or (tag == "span" and ident == "source-id"):
            self.page.source = self.page.source or Item("source")
        if tag == "span" and ident == "source-id":
            self._start("source-id")
        href = found.get("href") or ""
        if tag == "a" and href.startswith(_PREFIX) and self.current is not None:
            linked = href[len(_PREFIX) :].split("?")[0]
            if "open" in classes:  # the item's own source first, then the sources it names
                self.current.source_ids.insert(0, linked)
            else:
                self.current.source_ids.append(linked)
        if "space" in classes and (self.current or self.page.source) is not None:
            target = self.current or self.page.source
            assert target is not None
            target.space = f"{found.get('data-scope') or ''} · {found.get('data-key') or ''}"
        if ("text" in classes and tag == "p") or ("content" in classes and tag == "pre"):
            self._start("text")
        if tag == "code":
            self._start("reason")
        self.stack.append((tag, classes, ident))

    def _start(self, what: str) -> None:
        self.capture, self.buffer = what, []

    def handle_data(self, data: str) -> None:
        if self.capture is not None:
            self.buffer.append(data)

    def handle_endtag(self, tag: str) -> None:
        if self.capture is not None and tag in ("span", "p", "pre", "dd", "code"):
            self._finish("".join(self.buffer))
        if tag == "li" and self.current is not None:
            (self.page.hits if self.current.kind == "hit" else self.page.pack).append(self.current)
            self.current = None
        while self.stack and self.stack.pop()[0] != tag:
            pass

    def _finish(self, value: str) -> None:
        what, self.capture = self.capture, None
        target = self.current or self.page.source
        if what == "reason":
            self.page.reason = value.strip()
        elif what == "source-id" and self.page.source is not None:
            self.page.source.source_ids.append(value.strip())
        elif target is not None and what == "text":
            target.text = value


def read_page(html: str) -> Page:
    walk = _Walk()
    walk.feed(html)
    walk.close()
    return walk.page
