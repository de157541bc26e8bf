"""Aiming a correction: the other source found by a search, the words to redact as spans,
and the text before and after, as the preview shows it.

Why here and not in the use case: these are the page's ways of asking (a search box, a
selection's offsets) and of saying the result; the correction service still checks every
request, target and span itself. Every read goes through the memory policy: the search
returns only what the viewer may read, and ``MemoryInspector.headings`` names only those.
"""

from dataclasses import dataclass
from itertools import pairwise

from application.corrections.commands import MAX_SPANS, CorrectionRequest, Span
from application.corrections.planning import redacted_text
from application.memory.commands import SearchRequest
from application.operations.inspection import SourceHeading, SourceView
from domain.errors import InvalidInputError
from domain.lifecycle import CorrectionAction
from domain.reasons import ReasonCode
from domain.scopes import LifecycleState
from entrypoints.web.forms import Form
from entrypoints.web.viewer import Viewer

__all__ = ["AIMED", "BeforeAfter", "before_after", "candidates", "check_span", "spans_of"]

#: the corrections that name another source
AIMED = frozenset({CorrectionAction.SUPERSEDE, CorrectionAction.MARK_DUPLICATE})
#: choices the picker offers, and the hits read to find them (a source has many chunks)
_CHOICES = 8
_HITS = 40


async def candidates(viewer: Viewer, source_id: str, query: str) -> list[SourceHeading]:
    """Up to eight active sources the viewer may read that match ``query``, the source itself
    left out, each with its title line."""
    ctx = await viewer.context()
    found = await viewer.services.memory.search(
        SearchRequest(org_id=ctx.org_id, query=query, limit=_HITS), ctx
    )
    ids = [
        h.source_id
        for h in found.results
        if h.source_id != source_id and h.lifecycle is LifecycleState.ACTIVE
    ]
    ids = list(dict.fromkeys(ids))[:_CHOICES]
    headings = await viewer.services.inspector.headings(await viewer.context(), ids)
    return [headings[i] for i in ids if i in headings]


def _offset(raw: str, words: str) -> int | None:
    raw = raw.strip()
    if not raw:
        return None
    if not raw.isdigit():
        raise InvalidInputError(ReasonCode.INVALID_REQUEST, f"the {words} is not a whole number")
    return int(raw)


def _span(start_field: str, end_field: str) -> Span | None:
    start, end = _offset(start_field, "start"), _offset(end_field, "end")
    if start is None and end is None:
        return None
    if start is None or end is None:
        raise InvalidInputError(
            ReasonCode.INVALID_REQUEST, "give both the start and the end of the words to remove"
        )
    if end <= start:
        raise InvalidInputError(
            ReasonCode.INVALID_REQUEST,
            "the words to remove are empty: the end must follow the start",
        )
    return Span(start=start, end=end)


def spans_of(form: Form) -> list[Span]:
    """The redact form's passages, each a start and an end posted side by side (the page
    sends one pair per chosen passage, empty pairs ignored): none for the whole text."""
    starts, ends = form.all("start"), form.all("end")
    if len(starts) != len(ends):
        raise InvalidInputError(
            ReasonCode.INVALID_REQUEST, "give both the start and the end of the words to remove"
        )
    spans = sorted((s for s in map(_span, starts, ends) if s is not None), key=lambda s: s.start)
    if len(spans) > MAX_SPANS:
        raise InvalidInputError(
            ReasonCode.INVALID_REQUEST, f"choose at most {MAX_SPANS} passages to remove at once"
        )
    if any(later.start < earlier.end for earlier, later in pairwise(spans)):
        raise InvalidInputError(
            ReasonCode.INVALID_REQUEST,
            "two of the passages to remove overlap: choose them again without the overlap",
        )
    return spans


def check_span(correction: CorrectionRequest, content: str | None) -> None:
    """A span must lie within the text (the service refuses it too, as a conflict)."""
    if content is None or not correction.spans:
        return
    if max(s.end for s in correction.spans) > len(content):
        raise InvalidInputError(
            ReasonCode.INVALID_REQUEST,
            f"the words to remove reach past the end of the text ({len(content)} characters)",
        )


@dataclass(frozen=True)
class BeforeAfter:
    """What the preview shows changing, as plain text the template escapes."""

    before: str
    after: str


def before_after(
    correction: CorrectionRequest, view: SourceView, target: SourceHeading | None
) -> BeforeAfter | None:
    """The text about to change: the redacted text, the two sources' titles, or what
    leaves search; None for a correction that changes no text or title."""
    title = view.title or "this source"
    action = correction.action
    if action is CorrectionAction.REDACT and view.content is not None:
        return BeforeAfter(view.content, redacted_text(view.content, correction))
    if action in AIMED:
        other = target.title if target and target.title else "a source you may not read"
        if action is CorrectionAction.SUPERSEDE:
            return BeforeAfter(
                f"{title} ranks as it does now.",
                f"{other} ranks first; {title} is superseded by it.",
            )
        return BeforeAfter(
            f"{title} and {other} are both recalled.", f"{title} collapses under {other}."
        )
    if action is CorrectionAction.HIDE:
        return BeforeAfter(f"Search finds {title}.", f"Search no longer finds {title}.")
    if action is CorrectionAction.DELETE:
        return BeforeAfter(
            f"Search finds {title}.",
            f"Search no longer finds {title}; its text is gone and a tombstone stays.",
        )
    return None
