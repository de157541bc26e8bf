"""Why an item was recalled, in words a person can check against the signals."""

from collections.abc import Mapping

__all__ = ["SIGNAL_LABELS", "inclusion_reason"]

SIGNAL_LABELS: Mapping[str, str] = {
    "lexical": "matched the query's words",
    "vector": "close in meaning to the query",
    "episode_lexical": "its conversation matched the query's words",
    "episode_vector": "its conversation is close in meaning to the query",
    "neighbour": "next to a strongly matching turn",
    "subject_vector": "close in meaning to what the question counts",
    "entity": "supports a promoted record (decision, task, person ...) matching the query",
    "window": "inside a window of turns that matched",
    "graph": "reached from a matching promoted record through a relationship",
    "relation": "supports a promoted relationship whose fact matches the query",
    "entity_vector": "supports a promoted record that matched the query by meaning",
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
