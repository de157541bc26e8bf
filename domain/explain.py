"""Why an item was recalled, in words a person can check against the signals."""

from collections.abc import Mapping

from domain.signals import Signal

__all__ = ["SIGNAL_LABELS", "inclusion_reason"]

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


def inclusion_reason(ranks: Mapping[str, int]) -> str:
    """e.g. ``matched the query's words (rank 1); close in meaning to the query (rank 3)``."""
    if not ranks:
        return "no retrieval signal"
    parts = [
        f"{SIGNAL_LABELS.get(signal, signal)} (rank {rank})"
        for signal, rank in sorted(ranks.items(), key=lambda kv: (kv[1], kv[0]))
    ]
    return "; ".join(parts)
