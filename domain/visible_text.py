"""What counts as visible text, and which characters a name may not hold.

Why: text made only of zero-width, format or blank characters looks empty to a
person but was stored, chunked and searched as if it said something; and a name
holding NUL, a terminal escape or a bidi override can hide or reorder what an
operator reads in a listing or a log.
"""

import unicodedata

__all__ = ["has_visible_text", "unsafe_name_character"]

#: letters and symbols that render as blank space
_BLANK_GLYPHS = frozenset("\u115f\u1160\u3164\uffa0\u2800")
#: control (Cc), format (Cf: zero-width, bidi marks and overrides), separators,
#: surrogates, private use and unassigned code points carry no visible text
_INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zs", "Zl", "Zp"})
#: a name refuses every control and format character, and line/paragraph separators
_NAME_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})


def _invisible(char: str) -> bool:
    return (
        char.isspace()
        or char in _BLANK_GLYPHS
        or unicodedata.category(char) in _INVISIBLE_CATEGORIES
    )


def has_visible_text(text: str) -> bool:
    """True when at least one character would show (combining marks alone do not count)."""
    return any(
        not _invisible(char) and unicodedata.category(char) not in {"Mn", "Me"} for char in text
    )


def unsafe_name_character(name: str) -> str | None:
    """The first character a name may not hold, as ``U+XXXX``; None when the name is fine."""
    for char in name:
        if unicodedata.category(char) in _NAME_REFUSED_CATEGORIES:
            return f"U+{ord(char):04X}"
    return None
