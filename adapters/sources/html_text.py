"""HTML mail bodies as plain text, with the stdlib parser (no dependency, no network).

Why not keep the HTML: markup would be chunked, embedded and shown in
context packs as noise. Scripts and styles are dropped, block elements
become line breaks, entities are decoded.
"""

import re
from html.parser import HTMLParser

__all__ = ["html_to_text"]

_BLOCKS = frozenset(
    {
        "address", "article", "aside", "blockquote", "div", "dl", "footer", "h1", "h2",
        "h3", "h4", "h5", "h6", "header", "hr", "main", "nav", "ol", "p", "pre",
        "section", "table", "ul",
    }
)  # fmt: skip
#: elements that start a new line but not a new paragraph
_LINES = frozenset({"br", "dd", "dt", "li", "td", "th", "tr"})
_HIDDEN = frozenset({"script", "style", "head", "title", "noscript", "template"})


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _HIDDEN:
            self._hidden += 1
        elif tag in _BLOCKS or tag in _LINES:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _HIDDEN:
            self._hidden = max(0, self._hidden - 1)
        elif tag in _BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)


def html_to_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    parser.close()
    text = "".join(parser.parts)
    lines = (re.sub(r"[ \t\r\f\v\xa0]+", " ", line).strip() for line in text.split("\n"))
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()
