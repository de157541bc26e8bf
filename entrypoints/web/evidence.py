"""A candidate's evidence as the words around its cited passage, not the candidate again.

Why: a candidate's text is usually its passage, word for word, so quoting the
passage under it says the same thing twice. What a reviewer lacks is where it
was said: the words before and after. Pure: the review page reads the
source's text under the policy and passes it in; the template escapes each part.
"""

import msgspec

__all__ = ["Passage", "passage", "repeats"]

#: characters of context on each side of the cited words
WIDTH = 200


class Passage(msgspec.Struct, frozen=True, kw_only=True):
    before: str
    #: the cited words, or None where they are the candidate's own text (said above)
    cited: str | None
    after: str

    @property
    def whole(self) -> bool:
        """The cited words are all the source says (a full stop aside): no context to show."""
        return not any(c.isalnum() for c in self.before + self.after)


def _flat(text: str) -> str:
    return " ".join(text.split()).casefold().rstrip(".!?;:")


def repeats(words: str, candidate: str) -> bool:
    """Whether ``words`` say the candidate's text again (case, spacing and a final stop aside)."""
    flat = _flat(words)
    return bool(flat) and flat in _flat(candidate)


def _cited(text: str, start: int, end: int, candidate: str) -> tuple[int, int, bool]:
    """(start, end, repeats): where the cited words are, and whether they are the candidate's."""
    span = text[start:end]
    at = span.casefold().find(candidate.strip().casefold()) if candidate.strip() else -1
    if at >= 0:
        return start + at, start + at + len(candidate.strip()), True
    return start, end, repeats(span, candidate)


def passage(text: str, start: int, end: int, candidate: str, width: int = WIDTH) -> Passage:
    """The span ``text[start:end]`` with up to ``width`` characters of context each side,
    cut at a space; the cited words left out when they repeat ``candidate``."""
    start, end = max(0, min(start, len(text))), max(0, min(end, len(text)))
    begin, finish, repeats = _cited(text, start, min(max(start, end), len(text)), candidate)
    before = text[max(0, begin - width) : begin]
    if begin - width > 0:
        before = "…" + before[before.find(" ") + 1 :] if " " in before else "…" + before
    after = text[finish : finish + width]
    if finish + width < len(text):
        after = (after[: after.rfind(" ")] if " " in after else after) + "…"
    return Passage(before=before, cited=None if repeats else text[begin:finish], after=after)
