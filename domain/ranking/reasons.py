"""Why a hit ranks where it does, as values: a code and what the rule measured.

Why values, not sentences: the ranker and the retrieval rules say each reason
once, here; every surface then says it in its own words from the code (the
API's sentence in ``domain.explain``, the web page's short words), and none
reads a sentence back to learn which rule it was.
"""

from collections.abc import Mapping
from enum import StrEnum

import msgspec

__all__ = ["RankCode", "RankReason", "found_by"]


class RankCode(StrEnum):
    #: a retrieval signal found it, at a rank (``signal``, ``rank``)
    FOUND_BY = "found_by"
    #: no retrieval signal found it (it came with another hit)
    NO_SIGNAL = "no_signal"
    #: it holds most of the question's weighted words (``share``, 0-1)
    COVERAGE = "coverage"
    #: it has the question's words side by side
    PHRASE = "phrase"
    #: said by the role the question asks about (``who``: user, assistant)
    ROLE_ASKED = "role_asked"
    #: said by the speaker the question names (``who``)
    SPEAKER_NAMED = "speaker_named"
    #: it happened when the question says
    DATE = "date"
    #: it matches one of the events the question compares
    COMPARED_EVENT = "compared_event"
    #: it replies to a turn that matches
    REPLY = "reply"
    #: its speaker tells it in the first person
    FIRST_PERSON = "first_person"
    #: it beat a protected item of the fused order by a clear margin
    CLEAR_MARGIN = "clear_margin"
    #: a reranker moved it (``before``, ``after``: 1-based places; ``by``: the reranker)
    RERANKED = "reranked"
    #: what a reranker said of it, in its own words (``note``)
    RERANKER_NOTE = "reranker_note"
    #: its source was superseded (``who``: the replacement's id); ranked below fresh evidence
    SUPERSEDED = "superseded"
    #: its source is marked stale; ranked below fresh evidence
    STALE = "stale"
    #: kept in a pack although nothing in memory is about the question
    WEAK_MATCH = "weak_match"


class RankReason(msgspec.Struct, frozen=True, kw_only=True):
    """One reason; only the fields its code names (``RankCode``) are set."""

    code: RankCode
    signal: str | None = None
    rank: int | None = None
    share: float | None = None
    who: str | None = None
    before: int | None = None
    after: int | None = None
    by: str | None = None
    note: str | None = None


def found_by(ranks: Mapping[str, int]) -> list[RankReason]:
    """The signals that found a hit, best rank first (ties by name), or that none did."""
    if not ranks:
        return [RankReason(code=RankCode.NO_SIGNAL)]
    return [
        RankReason(code=RankCode.FOUND_BY, signal=signal, rank=rank)
        for signal, rank in sorted(ranks.items(), key=lambda kv: (kv[1], kv[0]))
    ]
