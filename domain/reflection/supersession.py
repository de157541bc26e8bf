"""When a statement replaces an earlier one: the cue in its words, and what it names.

"We use Postgres instead of SurrealDB", "we no longer use Redis", "we
switched from weekly to daily releases", "replace the cron job with a
queue": each says what it replaces. ``replaced_phrase`` finds that phrase
(the older thing, as written); promotion then looks for an accepted record
of the same type, in the same space, whose name holds every meaningful word
of the phrase (``names_replaced``), and links the two with ``SUPERSEDES``.

Blind spots, on purpose: a bare "changed to Y" or "switched to Y" names no
older thing, so nothing is linked (a reviewer can name the record it
replaces when proposing); no coreference ("we dropped it"); English only.
"""

import re

from domain.query_terms import FUNCTION_WORDS
from domain.words import word_tokens

__all__ = ["MAX_PHRASE_WORDS", "names_replaced", "replaced_phrase"]

#: a replaced thing is named in a few words; longer matches are a clause, not a name
MAX_PHRASE_WORDS = 6
_I = re.IGNORECASE
_END = r"(?P<old>[^,.;:!?()]+?)"
#: where a replaced thing's name stops: punctuation, the end, or a reason
_STOP = r"(?=\s*(?:[,.;:!?()]|$|\bfor\b|\bbecause\b|\bsince\b))"
_MOVES = (
    r"switch|switched|switching|move|moved|moving|migrate|migrated|migrating"
    r"|change|changed|changing|go|went|going"
)
_HOLDS = (
    r"use|uses|using|need|needs|want|wants|prefer|prefers|like|likes"
    r"|run|runs|running|go\s+with|going\s+with|do|does|doing"
)
_CUES = (
    re.compile(rf"\binstead\s+of\s+{_END}{_STOP}", _I),
    re.compile(rf"\b(?:{_MOVES})\s+from\s+{_END}\s+(?:to|over\s+to)\b", _I),
    re.compile(rf"\breplac(?:e|ed|es|ing)\s+{_END}\s+(?:with|by)\b", _I),
    re.compile(rf"\bno\s+longer\s+(?:{_HOLDS})\s+{_END}{_STOP}", _I),
)
def _words(text: str) -> list[str]:
    return [w.lower() for w in word_tokens(text) if w.lower() not in FUNCTION_WORDS]


def replaced_phrase(sentence: str) -> str | None:
    """The older thing a sentence says it replaces, as written; None without a cue."""
    for cue in _CUES:
        match = cue.search(sentence)
        if match is None:
            continue
        phrase = " ".join(match.group("old").split())
        if _words(phrase) and len(phrase.split()) <= MAX_PHRASE_WORDS:
            return phrase
    return None


def names_replaced(phrase: str, name: str) -> bool:
    """Whether a record's ``name`` holds every meaningful word of the replaced ``phrase``."""
    wanted = set(_words(phrase))
    return bool(wanted) and wanted <= set(_words(name))
