"""Why an item was recalled, in words a person can check against the signals."""

from collections.abc import Mapping

from domain.ranking.reasons import found_by
from domain.ranking.sentences import SIGNAL_LABELS, reason_text

__all__ = ["SIGNAL_LABELS", "inclusion_reason"]


def inclusion_reason(ranks: Mapping[str, int]) -> str:
    """e.g. ``matched the query's words (rank 1); close in meaning to the query (rank 3)``."""
    return reason_text(found_by(ranks))
