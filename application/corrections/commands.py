"""What a caller asks of a correction; checked once here for every surface."""

import hashlib

import msgspec

from domain.errors import InvalidInputError
from domain.lifecycle import CorrectionAction
from domain.reasons import ReasonCode

__all__ = ["MAX_REASON_CHARS", "MAX_SPANS", "CorrectionRequest", "Span"]

MAX_REASON_CHARS = 2_000
MAX_SPANS = 1_000
_ENCODE = msgspec.json.Encoder().encode

#: the actions that name another source, and the field that names it
_TARGET_FIELD = {
    CorrectionAction.SUPERSEDE: "replacement_id",
    CorrectionAction.MARK_DUPLICATE: "canonical_id",
}


class Span(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A character range of a source's content, ``[start, end)``."""

    start: int
    end: int


class CorrectionRequest(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    action: CorrectionAction
    #: why, in the caller's words; kept on the source (the tombstone's "why"), never audited
    reason: str | None = None
    replacement_id: str | None = None
    canonical_id: str | None = None
    #: redact only: the spans to remove (none: the whole text) and what stands in for them
    spans: list[Span] | None = None
    summary: str | None = None

    def validate(self) -> None:
        for text, name in ((self.reason, "reason"), (self.summary, "summary")):
            if text is not None and len(text) > MAX_REASON_CHARS:
                raise InvalidInputError(
                    ReasonCode.CONTENT_TOO_LARGE,
                    f"{name} is longer than {MAX_REASON_CHARS} characters",
                )
        wanted = _TARGET_FIELD.get(self.action)
        for name in ("replacement_id", "canonical_id"):
            given = getattr(self, name) is not None
            if given and name != wanted:
                raise InvalidInputError(
                    ReasonCode.INVALID_REQUEST, f"{name} does not apply to {self.action}"
                )
            if name == wanted and not getattr(self, name):
                raise InvalidInputError(ReasonCode.INVALID_REQUEST, f"{self.action} needs {name}")
        if self.action is not CorrectionAction.REDACT and (
            self.spans is not None or self.summary is not None
        ):
            raise InvalidInputError(
                ReasonCode.INVALID_REQUEST, "spans and summary apply to redact only"
            )
        self._check_spans()

    def _check_spans(self) -> None:
        if self.spans is None:
            return
        if not self.spans or len(self.spans) > MAX_SPANS:
            raise InvalidInputError(
                ReasonCode.INVALID_REQUEST, f"spans must hold 1 to {MAX_SPANS} ranges"
            )
        previous_end = 0
        for span in sorted(self.spans, key=lambda s: s.start):
            if not 0 <= span.start < span.end or span.start < previous_end:
                raise InvalidInputError(
                    ReasonCode.INVALID_REQUEST,
                    "spans must be non-empty, non-overlapping [start, end) ranges",
                )
            previous_end = span.end

    @property
    def target_id(self) -> str | None:
        return self.replacement_id or self.canonical_id

    def digest(self) -> str:
        """What a preview token binds besides the source: the request, as a hash."""
        return hashlib.sha256(_ENCODE(self)).hexdigest()
