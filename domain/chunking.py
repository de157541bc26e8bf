"""Splitting raw content into chunks an embedder can take whole.

MiniLM reads at most 256 word pieces (about 1,000 characters of English), so
a chunk is at most ``max_chars`` and ends at the best natural boundary found
in its last stretch: a paragraph break, then a sentence end, then a space.
Consecutive chunks overlap a little so a fact split across a boundary is
still whole in one of them.
"""

import re

import msgspec

__all__ = ["ChunkingRules", "TextSpan", "split_into_chunks"]

_SENTENCE_END = re.compile(r"[.!?][\"')\]]?\s")


class ChunkingRules(msgspec.Struct, frozen=True, kw_only=True):
    max_chars: int = 1000
    overlap_chars: int = 100
    #: a boundary is searched for only in this last fraction of a window
    boundary_window: float = 0.3

    def __post_init__(self) -> None:
        if self.max_chars < 20:
            raise ValueError("max_chars must be at least 20")
        if not 0 <= self.overlap_chars < self.max_chars // 2:
            raise ValueError("overlap_chars must be >= 0 and under half of max_chars")
        if not 0 < self.boundary_window <= 1:
            raise ValueError("boundary_window must be in (0, 1]")


class TextSpan(msgspec.Struct, frozen=True, kw_only=True):
    start: int
    end: int
    text: str


def _best_cut(content: str, start: int, hard_end: int, rules: ChunkingRules) -> int:
    floor = hard_end - int((hard_end - start) * rules.boundary_window)
    window = content[floor:hard_end]
    para = window.rfind("\n\n")
    if para != -1:
        return floor + para + 2
    sentence_ends = [m.end() for m in _SENTENCE_END.finditer(window)]
    if sentence_ends:
        return floor + sentence_ends[-1]
    space = max(window.rfind(" "), window.rfind("\n"))
    if space != -1:
        return floor + space + 1
    return hard_end


def split_into_chunks(content: str, rules: ChunkingRules | None = None) -> list[TextSpan]:
    """Cover ``content`` with spans of at most ``max_chars``; whitespace-only spans are dropped."""
    rules = rules or ChunkingRules()
    spans: list[TextSpan] = []
    start = 0
    length = len(content)
    while start < length:
        hard_end = min(start + rules.max_chars, length)
        end = hard_end if hard_end == length else _best_cut(content, start, hard_end, rules)
        piece = content[start:end]
        if piece.strip():
            spans.append(TextSpan(start=start, end=end, text=piece))
        if end >= length:
            break
        # step back by the overlap, but always move forward
        start = max(end - rules.overlap_chars, start + 1)
        # do not start an overlap in the middle of a word
        if rules.overlap_chars and start < end:
            space = content.find(" ", start, end)
            if space != -1:
                start = space + 1
    return spans
