"""The ranker's reasons for a hit, in a few plain words on one line.

Why: the search page showed each hit's full reason string ("matched the
query's words (rank 1); close in meaning to the query (rank 3); holds 80% of
the question's weighted words; ...") under every hit, long and the same from
hit to hit. A person scanning results wants the gist: which signals found it
and which rules moved it. The signals come from the hit's own ``signals``
(not from parsing), the rules from the reason's remaining parts, each said
shortly and once; the full list stays on the page behind a ``<details>``.
Words only: nothing here changes what is shown or to whom.
"""

import re
from typing import Protocol

import msgspec

from application.memory.results import Signals
from domain.explain import inclusion_reason
from domain.signals import Signal

__all__ = ["Why", "why", "why_of"]

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


_RERANKED = re.compile(r"reranked from (\d+) to (\d+) by .+")

#: a ranker or lifecycle rule (see domain/ranking, application/retrieval) -> short words;
#: each pattern matches the whole part, ``\1`` names what it captured
_RULES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), words)
    for pattern, words in (
        (r"holds (\d+%) of the question's weighted words", r"\1 of your words"),
        (r"has the question's words side by side", "your words side by side"),
        (r"said by (?:the )?(.+?), whom the question (?:asks about|names)", r"said by \1"),
        (r"happened when the question says", "at the time you asked about"),
        (r"matches one of the events the question compares", "one of the compared events"),
        (r"reply to a matching turn", "a reply to a match"),
        (r"told in the first person", "in the speaker's own words"),
        (r"moved up past the fused order by a clear margin", "moved up: clearly best"),
        (r"weak match\b.*", "weak match"),
        (r"superseded by .+: ranked below fresh evidence", "superseded, ranked lower"),
        (r"stale: ranked below fresh evidence", "stale, ranked lower"),
        (r"no retrieval signal", "no direct match"),
    )
)


class Why(msgspec.Struct, frozen=True, kw_only=True):
    #: one line: the signals, then the rules, each said once
    short: str
    #: every part of the ranker's reason, as it gave them
    parts: list[str]


def _rule_words(part: str) -> str:
    moved = _RERANKED.fullmatch(part)
    if moved is not None:
        up = int(moved[2]) < int(moved[1])
        return f"moved {'up' if up else 'down'} by the reranker"
    for pattern, words in _RULES:
        found = pattern.fullmatch(part)
        if found is not None:
            return found.expand(words)
    return part  # a reason this page has no words for yet: shown as the ranker said it


_COVERAGE = re.compile(r"\d+% of your words")


def why_of(reason: str, ranks: dict[str, int], *, turn: bool = False) -> Why:
    """``reason``: the hit's full reason; ``ranks``: its signals' ranks (signal -> rank);
    ``turn``: the hit is a turn of a conversation (else its episode is the whole source)."""
    parts = [p.strip() for p in reason.split("; ") if p.strip()]
    found_by = set(inclusion_reason(ranks).split("; ")) if ranks else set()
    whole = "conversation" if turn else "whole source"
    said: list[str] = []
    for signal, _ in sorted(ranks.items(), key=lambda kv: (kv[1], kv[0])):
        said.append(_SIGNALS.get(signal, signal.replace("_", " ")).format(whole=whole))
    rules = [_rule_words(part) for part in parts if part not in found_by]
    coverage = next((r for r in rules if _COVERAGE.fullmatch(r)), None)
    if coverage is not None and "your words" in said:  # "your words · 80% of your words"
        said[said.index("your words")] = coverage
        rules.remove(coverage)
    short = " · ".join(dict.fromkeys([*said, *rules]))  # each said once, in order
    return Why(short=short[:1].upper() + short[1:], parts=parts)


class _Explained(Protocol):
    @property
    def reason(self) -> str: ...

    @property
    def signals(self) -> Signals: ...


def why(hit: _Explained) -> Why:
    """For a search hit or a pack item: its reason and its signals' ranks."""
    ranks = {
        name.removesuffix("_rank"): rank
        for name, rank in msgspec.structs.asdict(hit.signals).items()
        if rank is not None
    }
    return why_of(hit.reason, ranks, turn=getattr(hit, "turn_index", None) is not None)
