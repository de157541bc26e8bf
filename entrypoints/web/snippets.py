"""A hit's snippet: a few lines around the query's words, those words marked.

Why: a search hit used to show its whole chunk (up to a thousand characters,
often raw quoted mail starting mid-sentence). A person scans a window of the
text where the query's words are densest, cut at word boundaries, with the
words themselves marked. Pure: the template renders each part as text (Jinja
escapes it) and wraps the marked ones in ``<mark>``, so nothing here builds
markup and remembered markup stays inert.
"""

import re
from typing import NamedTuple

__all__ = ["Part", "query_terms", "snippet"]

#: about two to three lines of the results column at 1280 px
WIDTH = 240
#: words too common to mark (the ranker weighs them down too)
_STOP = frozenset(
    " ".join(
        (
            "a an and are as at be but by did do does for from had has have how i in is it",
            "its me my of on or our so that the their them then there these they this to",
            "was we were what when where which who why will with you your",
        )
    ).split()
)
_WORD = re.compile(r"\w+", re.UNICODE)


class Part(NamedTuple):
    text: str
    marked: bool


def query_terms(query: str) -> list[str]:
    """The query's words worth marking: lowercased, stop words and single letters left out."""
    seen: dict[str, None] = {}
    for word in _WORD.findall(query.lower()):
        if len(word) > 1 and word not in _STOP:
            seen.setdefault(word, None)
    return list(seen)


def _matches(text: str, terms: list[str]) -> list[tuple[int, int, str]]:
    """Each word of ``text`` that starts with a term ("deploy" marks "deployment")."""
    if not terms:
        return []
    found = []
    for word in _WORD.finditer(text):
        lowered = word.group().lower()
        term = next((t for t in terms if lowered.startswith(t)), None)
        if term is not None:
            found.append((word.start(), word.end(), term))
    return found


def _window(text: str, matches: list[tuple[int, int, str]], width: int) -> tuple[int, int]:
    """The ``width`` characters holding the most distinct terms (then the most matches)."""
    if not matches:
        return 0, min(len(text), width)
    best, best_key = 0, (-1, -1)
    for i, (start, _, _) in enumerate(matches):
        inside = [m for m in matches[i:] if m[1] <= start + width]
        key = (len({m[2] for m in inside}), len(inside))
        if key > best_key:
            best, best_key = i, key
    first = matches[best][0]
    # a little context before the first word, starting on a word boundary
    start = max(0, first - width // 5)
    if start > 0:
        space = text.find(" ", start)
        start = space + 1 if 0 <= space < first else first
    end = min(len(text), start + width)
    if end < len(text):
        space = text.rfind(" ", start, end)
        end = space if space > matches[best][1] else end
    return start, end


def snippet(text: str, query: str, width: int = WIDTH) -> list[Part]:
    """About ``width`` characters of ``text`` (whitespace flattened) around the query's
    words, split into parts; the parts that are query words are ``marked``. An ellipsis
    part says where text was cut."""
    flat = " ".join(text.split())
    matches = _matches(flat, query_terms(query))
    start, end = _window(flat, matches, width)
    parts: list[Part] = [Part("…", False)] if start > 0 else []
    at = start
    for m_start, m_end, _ in matches:
        if m_start < start or m_end > end:
            continue
        if m_start > at:
            parts.append(Part(flat[at:m_start], False))
        parts.append(Part(flat[m_start:m_end], True))
        at = m_end
    if end > at:
        parts.append(Part(flat[at:end], False))
    if end < len(flat):
        parts.append(Part("…", False))
    return parts
