"""The ranker's reasons for a hit, in a few plain words on one line.

Why: the search page showed each hit's full reason string ("matched the
query's words (rank 1); close in meaning to the query (rank 3); holds 80% of
the question's weighted words; ...") under every hit, long and the same from
hit to hit. A person scanning results wants the gist: which signals found it
and which rules moved it, each said shortly and once, from the reasons' codes
(``domain.ranking.reasons``); the full sentences stay on the page behind a
``<details>``. Words only: nothing here changes what is shown or to whom.
"""

from collections.abc import Sequence
from typing import Protocol

import msgspec

from domain.ranking.reasons import RankCode, RankReason
from domain.ranking.sentences import sentence
from domain.signals import Signal

__all__ = ["WORDS", "Why", "why", "why_of", "words"]

#: each retrieval signal, shortly; signals that say the same thing share words
_SIGNALS: dict[str, str] = {
    Signal.LEXICAL: "your words",
    Signal.VECTOR: "similar meaning",
    Signal.EPISODE_LEXICAL: "its {whole} matches",
    Signal.EPISODE_VECTOR: "its {whole} matches",
    Signal.NEIGHBOUR: "next to a match",
    Signal.SUBJECT_VECTOR: "about what you count",
    Signal.ENTITY: "backs a matching record",
    Signal.WINDOW: "in a matching stretch of talk",
    Signal.GRAPH: "linked to a matching record",
    Signal.RELATION: "backs a matching relationship",
    Signal.ENTITY_VECTOR: "backs a matching record",
}

#: each reason's short words, filled from its fields (``found``: its signal's words,
#: ``way``: up or down, ``share``: a percentage)
WORDS: dict[RankCode, str] = {
    RankCode.FOUND_BY: "{found}",
    RankCode.NO_SIGNAL: "no direct match",
    RankCode.COVERAGE: "{share:.0%} of your words",
    RankCode.PHRASE: "your words side by side",
    RankCode.ROLE_ASKED: "said by {who}",
    RankCode.SPEAKER_NAMED: "said by {who}",
    RankCode.DATE: "at the time you asked about",
    RankCode.COMPARED_EVENT: "one of the compared events",
    RankCode.REPLY: "a reply to a match",
    RankCode.FIRST_PERSON: "in the speaker's own words",
    RankCode.CLEAR_MARGIN: "moved up: clearly best",
    RankCode.RERANKED: "moved {way} by the reranker",
    RankCode.RERANKER_NOTE: "{note}",
    RankCode.SUPERSEDED: "superseded, ranked lower",
    RankCode.STALE: "stale, ranked lower",
    RankCode.WEAK_MATCH: "weak match",
}


class Why(msgspec.Struct, frozen=True, kw_only=True):
    #: one line: the signals, then the rules, each said once
    short: str
    #: every reason, as the hit's ``reason`` says it
    parts: list[str]


def words(reason: RankReason, *, turn: bool = False) -> str:
    """``reason`` in a few words; ``turn``: the hit is a conversation's turn (else its
    episode is the whole source)."""
    signal = reason.signal or ""
    whole = "conversation" if turn else "whole source"
    found = _SIGNALS.get(signal, signal.replace("_", " ")).format(whole=whole)
    up = (reason.after or 0) < (reason.before or 0)
    return WORDS[reason.code].format(
        found=found,
        way="up" if up else "down",
        share=reason.share,
        who=reason.who,
        note=reason.note,
    )


def why_of(reasons: Sequence[RankReason], *, turn: bool = False) -> Why:
    """``reasons``: the hit's reasons, the signals that found it first (best rank first);
    ``turn``: the hit is a turn of a conversation (else its episode is the whole source)."""
    found = [r for r in reasons if r.code is RankCode.FOUND_BY]
    rules = [r for r in reasons if r.code is not RankCode.FOUND_BY]
    said = [words(r, turn=turn) for r in found]
    coverage = next((r for r in rules if r.code is RankCode.COVERAGE), None)
    lexical = [n for n, r in enumerate(found) if r.signal == Signal.LEXICAL]
    if coverage is not None and lexical:  # "your words · 80% of your words", said once
        said[lexical[0]] = words(coverage)
        rules.remove(coverage)
    short = " · ".join(dict.fromkeys([*said, *(words(r, turn=turn) for r in rules)]))
    return Why(short=short[:1].upper() + short[1:], parts=[sentence(r) for r in reasons])


class _Hit(Protocol):
    @property
    def turn_index(self) -> int | None: ...


def why(hit: _Hit, reasons: Sequence[RankReason]) -> Why:
    """For a search hit or a pack item, with its reasons (``ExplainedSearch.reasons``)."""
    return why_of(reasons, turn=hit.turn_index is not None)
