"""Sentences and how much of one a source supports, by words.

The extractive drafter quotes whole sentences of the section packs; the
verifier measures how many of a sentence's content words its cited source
contains (``lexical_support``) and whether a sentence repeats a run of words
from memory the audience may not read (``shares_run``). Words are compared
stemmed and lowercased (``domain.ranking.text``), so "decided" meets "decide".

A code diff in a text (a patch mailed to a list, a commit pasted in a note)
is code, not statements: its lines are never sentences (``without_patches``).
"""

import re

from domain.ranking.text import content_terms, tokens

__all__ = ["lexical_support", "shares_run", "split_sentences", "without_patches"]

#: a sentence ends at . ! or ? followed by whitespace, or at a blank line
_BOUNDARY = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])|\n\s*\n")
_SPACE = re.compile(r"\s+")
#: shorter fragments ("Thanks.", "> On Mon") carry no claim worth quoting
MIN_SENTENCE_CHARS = 25
MAX_SENTENCE_CHARS = 400


#: where a unified diff starts: a git header, the file pair, or a hunk header
_PATCH_START = re.compile(
    r"^(diff --git |--- (a/|/dev/null)|\+\+\+ (b/|/dev/null)|@@ -\d+(,\d+)? \+\d+)"
)
#: what a diff's file header holds between ``diff --git`` and its first hunk
_PATCH_HEADER = re.compile(
    r"^(index [0-9a-f]+\.\.|(new|deleted) file mode |(old|new) mode |similarity index |"
    r"rename (from|to) |Binary files )"
)


def _in_patch(line: str) -> bool:
    """A line a diff goes on with: added, removed or context ("" when a mailer dropped
    the context line's space), "\\ No newline at end of file", or a file header."""
    return line[:1] in ("+", "-", " ", "\\", "") or bool(_PATCH_HEADER.match(line))


def without_patches(text: str) -> tuple[str, list[str]]:
    """The text with the lines of any unified diff removed, and those lines.

    A diff runs from its header or first hunk header through the lines it is made of;
    the first line that is none of them ends it (a signature, the next paragraph of a
    mail), and a paragraph break stands where the diff was."""
    kept: list[str] = []
    removed: list[str] = []
    in_patch = False
    for line in text.splitlines():
        if _PATCH_START.match(line) or (in_patch and _in_patch(line)):
            if not in_patch:
                kept.append("")
            in_patch = True
            removed.append(line)
            continue
        if in_patch:
            kept.append("")
        in_patch = False
        kept.append(line)
    return "\n".join(kept), removed


def split_sentences(text: str) -> list[str]:
    """The text's sentences, whitespace collapsed; fragments, quoted-reply lines and the
    lines of a code diff dropped."""
    kept = []
    for part in _BOUNDARY.split(without_patches(text)[0]):
        lines = [ln for ln in part.splitlines() if not ln.lstrip().startswith(">")]
        sentence = _SPACE.sub(" ", " ".join(lines)).strip()
        if MIN_SENTENCE_CHARS <= len(sentence) <= MAX_SENTENCE_CHARS and any(
            c.isalpha() for c in sentence
        ):
            kept.append(sentence)
    return kept


def lexical_support(sentence: str, source: str) -> float:
    """The share of the sentence's content words that the source contains (0 to 1)."""
    terms = content_terms(sentence)
    if not terms:
        return 0.0
    present = set(tokens(source))
    return sum(1 for t in terms if t in present) / len(terms)


def shares_run(text: str, hidden: str, run: int = 8) -> bool:
    """Whether ``text`` repeats ``run`` consecutive words of ``hidden`` (a leak of its text)."""
    words = tokens(hidden)
    if len(words) < run:
        return False
    grams = {words[i : i + run] for i in range(len(words) - run + 1)}
    mine = tokens(text)
    return any(mine[i : i + run] in grams for i in range(len(mine) - run + 1))
