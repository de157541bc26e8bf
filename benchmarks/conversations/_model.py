"""The shape of a fact template: exchanges placed in sessions, and the questions about it."""

from typing import NamedTuple

__all__ = ["FactTemplate", "Line", "T"]

#: (who, text): who is ``o`` (the fact's person) or ``x`` (the other), with an optional
#: ``*`` (evidence) or ``~`` (a statement a later one replaces)
Line = tuple[str, str]


class FactTemplate(NamedTuple):
    #: one list of lines per session the fact appears in, in time order
    pieces: list[list[Line]]
    questions: list[str]
    answer: str


def T(pieces: list[list[Line]], questions: list[str], answer: str) -> FactTemplate:
    """Short constructor, so the template tables read as data."""
    return FactTemplate(pieces, questions, answer)
