"""Ranking reasons as sentences: what the API, the MCP tools and the CLI say as a hit's
``reason`` (the web page says them shortly, from the same codes).

Each code (``domain.ranking.reasons``) has its sentence here, and only here.
"""

from collections.abc import Mapping, Sequence

from domain.ranking.reasons import RankCode, RankReason
from domain.relevance_gate import WEAK_MATCH
from domain.signals import Signal

__all__ = ["SENTENCES", "SIGNAL_LABELS", "reason_text", "sentence"]

SIGNAL_LABELS: Mapping[str, str] = {
    Signal.LEXICAL: "matched the query's words",
    Signal.VECTOR: "close in meaning to the query",
    Signal.EPISODE_LEXICAL: "its conversation matched the query's words",
    Signal.EPISODE_VECTOR: "its conversation is close in meaning to the query",
    Signal.NEIGHBOUR: "next to a strongly matching turn",
    Signal.SUBJECT_VECTOR: "close in meaning to what the question counts",
    Signal.ENTITY: "supports a promoted record (decision, task, person ...) matching the query",
    Signal.WINDOW: "inside a window of turns that matched",
    Signal.GRAPH: "reached from a matching promoted record through a relationship",
    Signal.RELATION: "supports a promoted relationship whose fact matches the query",
    Signal.ENTITY_VECTOR: "supports a promoted record that matched the query by meaning",
}

#: each reason's sentence, filled from its fields (``label``: its signal's label)
SENTENCES: Mapping[RankCode, str] = {
    RankCode.FOUND_BY: "{label} (rank {rank})",
    RankCode.NO_SIGNAL: "no retrieval signal",
    RankCode.COVERAGE: "holds {share:.0%} of the question's weighted words",
    RankCode.PHRASE: "has the question's words side by side",
    RankCode.ROLE_ASKED: "said by the {who}, whom the question asks about",
    RankCode.SPEAKER_NAMED: "said by {who}, whom the question names",
    RankCode.DATE: "happened when the question says",
    RankCode.COMPARED_EVENT: "matches one of the events the question compares",
    RankCode.REPLY: "reply to a matching turn",
    RankCode.FIRST_PERSON: "told in the first person",
    RankCode.CLEAR_MARGIN: "moved up past the fused order by a clear margin",
    RankCode.RERANKED: "reranked from {before} to {after} by {by}",
    RankCode.RERANKER_NOTE: "{note}",
    RankCode.SUPERSEDED: "superseded by {who}: ranked below fresh evidence",
    RankCode.STALE: "stale: ranked below fresh evidence",
    RankCode.WEAK_MATCH: WEAK_MATCH,
}


def sentence(reason: RankReason) -> str:
    """e.g. ``matched the query's words (rank 1)``, ``holds 80% of the question's ...``."""
    label = SIGNAL_LABELS.get(reason.signal or "", reason.signal)
    return SENTENCES[reason.code].format(
        label=label,
        rank=reason.rank,
        share=reason.share,
        who=reason.who,
        before=reason.before,
        after=reason.after,
        by=reason.by,
        note=reason.note,
    )


def reason_text(reasons: Sequence[RankReason]) -> str:
    """A hit's reasons as one line, each sentence in order, ``; `` between."""
    return "; ".join(sentence(r) for r in reasons)
