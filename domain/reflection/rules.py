"""The deterministic extractor: offline rules that find what a text states outright.

Why it is built this way: docs/decisions/internals.md#domainreflectionrulespy.
"""

import re
from collections.abc import Callable, Iterator, Sequence

from domain.reflection.candidates import (
    MAX_CANDIDATE_CHARS,
    CandidateType,
    Extracted,
    Relation,
    Span,
)
from domain.reflection.supersession import replaced_phrase

__all__ = ["RULES_EXTRACTOR", "RULES_VERSION", "SentenceSplitter", "extract_by_rules"]

RULES_EXTRACTOR = "rules"
#: 2: statements that say what they replace ("instead of", "no longer", "switched from")
#: 3: sentences from a real segmenter: dots inside versions, hosts, abbreviations cut nothing
RULES_VERSION = "3"

#: the sentences of one line of text, as ``[start, end)`` offsets into it in reading order.
#: The domain imports no library, so a segmenter comes from outside (an adapter behind
#: ``application.ports.reflection.SentenceSegmenter``).
SentenceSplitter = Callable[[str], Sequence[tuple[int, int]]]

_I = re.IGNORECASE
_DECISION = (
    (re.compile(r"^\W*decision\s*:", _I), 0.95),
    (re.compile(r"\b(?:we|i|they|team)\s+(?:have\s+|had\s+)?decided\b", _I), 0.9),
    (re.compile(r"\bdecided\s+(?:to|on|that)\b", _I), 0.85),
    (re.compile(r"\b(?:we'll|we\s+will|let's|we\s+are|we're|i'm)\s+go(?:ing)?\s+with\b", _I), 0.8),
    (re.compile(r"\bgoing\s+with\b", _I), 0.75),
    (re.compile(r"\b(?:agreed|settled)\s+(?:to|on|that)\b", _I), 0.8),
)
_TASK = (
    (re.compile(r"^\s*[-*]\s*\[\s\]"), 0.95),
    (re.compile(r"\bTODO\b"), 0.9),
    (re.compile(r"\baction\s+items?\b", _I), 0.9),
    (re.compile(r"\b(?:remember|don't\s+forget)\s+to\b", _I), 0.75),
    (re.compile(r"\bI(?:'ll|\s+will)\s+(?!be\b|have\b|never\b|not\b)", _I), 0.7),
    (re.compile(r"\b(?:we|i)\s+(?:need|have)\s+to\b", _I), 0.6),
    (re.compile(r"\bfollow\s+up\b", _I), 0.6),
)
_PREFERENCE = (
    (
        re.compile(
            r"\bI\s+(?:really\s+|much\s+|strongly\s+|do\s+)?"
            r"(?:prefer|like|love|hate|dislike|enjoy|adore|detest|loathe)\b",
            _I,
        ),
        0.85,
    ),
    (re.compile(r"\bI\s+can(?:'t|not)\s+stand\b", _I), 0.85),
    (re.compile(r"\bmy\s+favou?rite\b", _I), 0.85),
    (re.compile(r"\bI'?d\s+rather\b", _I), 0.75),
)
_PROCEDURE = (
    (re.compile(r"^\s*(?:step\s+\d+\b|\d+[.)]\s)", _I), 0.6),
    (re.compile(r"\bhow\s+to\b.*:", _I), 0.6),
)
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DATE = re.compile(
    r"\b(?:\d{4}-\d{2}-\d{2}|(?:mon|tues|wednes|thurs|fri|satur|sun)day|tomorrow|next\s+week"
    rf"|{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\b|\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH})",
    _I,
)
_EVENT_NOUN = re.compile(
    r"\b(?:meeting|call|launch|release|deadline|trip|appointment|interview|demo|review|party"
    r"|flight|wedding|conference|birthday|due|standup|offsite|workshop)s?\b",
    _I,
)
_NAME_CUE = re.compile(
    r"\b(?:with|from|by|cc|told|asked|met|thanks|thank)\s+"
    r"(?P<name>[A-Z][a-z]+(?:[ ][A-Z][a-z]+)?)\b"
)
_NOT_NAMES = frozenset(
    """
    I The A An This That These Those It We You They He She My Our Your Their His Her Its
    Monday Tuesday Wednesday Thursday Friday Saturday Sunday Today Tomorrow Yesterday
    January February March April May June July August September October November December
    Mr Mrs Ms Dr Re Fwd Hi Hello Thanks Regards Best All Everyone Team
    """.split()  # noqa: SIM905 - a word list reads better as text
)
#: a conversation turn as ``compose_memory`` writes it: ``Maya (user): ...`` or ``user: ...``
_TURN = re.compile(
    r"^(?:(?P<speaker>[^\n():]{1,100}) \((?P<role>user|assistant|system)\)"
    r"|(?P<bare>user|assistant|system)): ",
    re.MULTILINE,
)
_LIKING = re.compile(r"\b(?:like|likes|prefer|prefers|want|wants|love|loves)\b", _I)
_LINE = re.compile(r"[^\n]+")
#: a piece without a letter ("1.", "2)", "?!") is a list marker or stray punctuation: it
#: opens the sentence after it rather than standing alone
_NO_LETTER = re.compile(r"[\W\d_]*")


class _Segment:
    __slots__ = ("end", "speaker", "speaker_span", "start")

    def __init__(
        self, start: int, end: int, speaker: str | None, speaker_span: tuple[int, int] | None
    ) -> None:
        self.start, self.end = start, end
        self.speaker, self.speaker_span = speaker, speaker_span


def _segments(text: str) -> list[_Segment]:
    """Turns of a conversation (with their speakers), or the whole text as one segment."""
    marks = [m for m in _TURN.finditer(text) if m.start() == 0 or text[m.start() - 1] == "\n"]
    if not marks:
        return [_Segment(0, len(text), None, None)]
    segments = []
    for at, mark in enumerate(marks):
        end = marks[at + 1].start() if at + 1 < len(marks) else len(text)
        name = mark.group("speaker")
        span = (mark.start("speaker"), mark.end("speaker")) if name else None
        segments.append(_Segment(mark.end(), end, name.strip() if name else None, span))
    return segments


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _sentences(text: str, segment: _Segment, split: SentenceSplitter) -> Iterator[tuple[int, int]]:
    """Sentence (or list item) spans inside a segment, trimmed of surrounding spaces."""
    for line in _LINE.finditer(text, segment.start, segment.end):
        base, size = line.start(), line.end() - line.start()
        opened: int | None = None  # where a marker piece opened the next sentence
        for piece_start, piece_end in split(line.group()):
            if not 0 <= piece_start < piece_end <= size:
                continue  # a segmenter's empty or stray range cites nothing
            start, end = _trimmed(text, base + piece_start, base + piece_end)
            if start == end:
                continue
            if opened is not None:
                start, opened = opened, None
            if _NO_LETTER.fullmatch(text, start, end):
                opened = start
            elif end - start >= 3:
                yield start, end
        if opened is not None:
            start, end = _trimmed(text, opened, line.end())
            if end - start >= 3:
                yield start, end


def _best(rules: Sequence[tuple[re.Pattern[str], float]], sentence: str) -> float | None:
    scores = [score for pattern, score in rules if pattern.search(sentence)]
    return max(scores) if scores else None


def _clip(text: str) -> str:
    return text if len(text) <= MAX_CANDIDATE_CHARS else text[: MAX_CANDIDATE_CHARS - 1] + "…"


_PREDICATES = {
    CandidateType.DECISION: "decided",
    CandidateType.TASK: "committed_to",
    CandidateType.PREFERENCE: "prefers",
}


def _statement(sentence: str) -> tuple[CandidateType, float] | None:
    """The one statement type a sentence makes, strongest kind first."""
    for kind, rules in (
        (CandidateType.DECISION, _DECISION),
        (CandidateType.TASK, _TASK),
        (CandidateType.PREFERENCE, _PREFERENCE),
        (CandidateType.PROCEDURE, _PROCEDURE),
    ):
        score = _best(rules, sentence)
        if score is not None:
            return kind, score
    return None


def _relationship(speaker: str, kind: CandidateType, sentence: str, span: Span) -> Extracted:
    predicate = _PREDICATES[kind]
    room = MAX_CANDIDATE_CHARS - len(speaker) - len(predicate) - 4
    obj = sentence if len(sentence) <= room else sentence[: room - 1] + "…"
    return Extracted(
        type=CandidateType.RELATIONSHIP,
        text=f"{speaker} {predicate.replace('_', ' ')}: {obj}",
        spans=(span,),
        confidence=0.8,
        relation=Relation(
            subject=speaker,
            subject_type=CandidateType.PERSON,
            predicate=predicate,
            object=_clip(sentence),
            object_type=kind,
        ),
    )


class _People:
    """Person candidates by name, each with up to ``_MAX_SPANS`` spans (first seen first)."""

    _MAX_SPANS = 5

    def __init__(self, source_id: str) -> None:
        self._source_id = source_id
        self._spans: dict[str, list[Span]] = {}
        self._confidence: dict[str, float] = {}

    def add(self, name: str, span: tuple[int, int] | None, confidence: float) -> None:
        spans = self._spans.setdefault(name, [])
        if span is not None and len(spans) < self._MAX_SPANS:
            spans.append(Span(source_id=self._source_id, start=span[0], end=span[1]))
        self._confidence[name] = max(self._confidence.get(name, 0.0), confidence)

    def found(self) -> list[Extracted]:
        return [
            Extracted(
                type=CandidateType.PERSON,
                text=name,
                spans=tuple(spans),
                confidence=self._confidence[name],
            )
            for name, spans in self._spans.items()
        ]


def extract_by_rules(
    source_id: str, text: str, split: SentenceSplitter, participants: Sequence[str] = ()
) -> list[Extracted]:
    """Candidates stated outright in ``text`` (one source's content), in reading order.

    ``split``: the sentence segmenter each line is read with. ``participants``:
    the people a message names in its headers (from, to, cc); they have no span
    in the text, so they cite the source alone.
    """
    found: list[Extracted] = []
    people = _People(source_id)
    for name in participants:
        if name.strip():
            people.add(_clip(name.strip()), None, 0.9)
    for segment in _segments(text):
        if segment.speaker:
            people.add(segment.speaker, segment.speaker_span, 0.95)
        for start, end in _sentences(text, segment, split):
            sentence = text[start:end]
            span = Span(source_id=source_id, start=start, end=end)
            statement = _statement(sentence)
            replaced = replaced_phrase(sentence)
            if statement is None and replaced is not None:
                # saying what it replaces is a decision (or a preference) in itself
                liking = _LIKING.search(sentence) is not None
                statement = (CandidateType.PREFERENCE if liking else CandidateType.DECISION, 0.7)
            if statement is not None:
                kind, score = statement
                found.append(
                    Extracted(
                        type=kind,
                        text=_clip(sentence),
                        spans=(span,),
                        confidence=score,
                        replaces=replaced,
                    )
                )
                if segment.speaker and kind in _PREDICATES:
                    found.append(_relationship(segment.speaker, kind, sentence, span))
            if _DATE.search(sentence) and _EVENT_NOUN.search(sentence):
                found.append(
                    Extracted(
                        type=CandidateType.EVENT,
                        text=_clip(sentence),
                        spans=(span,),
                        confidence=0.7,
                    )
                )
            for match in _NAME_CUE.finditer(sentence):
                name = match.group("name")
                if name.split()[0] not in _NOT_NAMES:
                    people.add(name, (start + match.start("name"), start + match.end("name")), 0.6)
    return found + people.found()
