"""An import's skipped records as a person finds them: where in the archive, and why.

Why here: the workspace's import page and ``tessera import`` both list what an import
passed over, and say it the same way.
"""

import re

from application.imports.records import SkipReason

__all__ = ["record_words", "skip_words"]

#: how each format names one of its records: ``mail.mbox#4``, ``chats.jsonl:9``
_RECORD_SHAPES = {
    "mbox": (re.compile(r"(?P<file>.+)#(?P<n>\d+)"), "message {n} of {file}"),
    "jsonl": (re.compile(r"(?P<file>.+):(?P<n>\d+)"), "line {n} of {file}"),
}

_SKIP_WORDS = {
    SkipReason.MALFORMED: "not readable",
    SkipReason.EMPTY: "nothing to remember",
    SkipReason.UNSUPPORTED: "of a kind this format does not import",
}


def record_words(adapter: str, record_id: str) -> str:
    """An import's record as a person finds it in the archive: "message 4 of mail.mbox"."""
    shape = _RECORD_SHAPES.get(adapter)
    found = shape[0].fullmatch(record_id) if shape else None
    if shape is None or found is None:
        return record_id  # a file's path or a conversation's own id says where it is
    return shape[1].format(**found.groupdict())


def skip_words(reason: str) -> str:
    """Why a record was passed over, as the end of "message 4 of mail.mbox: …"."""
    try:
        return _SKIP_WORDS[SkipReason(reason)]
    except ValueError:
        return reason.replace("_", " ")
