"""The verification verdict: one status from what the checks found, in a fixed order.

Order of precedence, most serious first: text from memory the audience may
not read (``blocked_policy_denial``); no cited sentence at all
(``blocked_missing_sources``); a sentence without citations or not supported
by what it cites (``blocked_unsupported_claims``); a cited source that is
stale under a freshness policy that blocks (``blocked_stale_sources``);
sections nothing supports or stale sources only flagged (``passed_with_gaps``);
otherwise ``passed``.

Support thresholds (measured on the extractive drafter, whose quotes score
1.0 lexical, and on paraphrases of MiniLM-embedded notes): a sentence is
supported by a cited source when at least ``LEXICAL_STRONG`` of its content
words occur in the source, or when at least ``LEXICAL_WEAK`` do and the
embedder's cosine between sentence and source is at least ``COSINE_MIN``.
"""

from enum import StrEnum

__all__ = [
    "COSINE_MIN",
    "LEXICAL_STRONG",
    "LEXICAL_WEAK",
    "VerificationStatus",
    "decide_status",
    "is_supported",
]

LEXICAL_STRONG = 0.6
LEXICAL_WEAK = 0.3
COSINE_MIN = 0.5


class VerificationStatus(StrEnum):
    PASSED = "passed"
    PASSED_WITH_GAPS = "passed_with_gaps"
    BLOCKED_MISSING_SOURCES = "blocked_missing_sources"
    BLOCKED_POLICY_DENIAL = "blocked_policy_denial"
    BLOCKED_UNSUPPORTED_CLAIMS = "blocked_unsupported_claims"
    BLOCKED_STALE_SOURCES = "blocked_stale_sources"

    @property
    def blocked(self) -> bool:
        return self.value.startswith("blocked_")


def is_supported(lexical: float, cosine: float) -> bool:
    return lexical >= LEXICAL_STRONG or (lexical >= LEXICAL_WEAK and cosine >= COSINE_MIN)


def decide_status(
    *,
    leaks: int,
    cited_sentences: int,
    unsupported: int,
    stale_cited: int,
    stale_blocks: bool,
    gaps: int,
) -> VerificationStatus:
    if leaks:
        return VerificationStatus.BLOCKED_POLICY_DENIAL
    if cited_sentences == 0:
        return VerificationStatus.BLOCKED_MISSING_SOURCES
    if unsupported:
        return VerificationStatus.BLOCKED_UNSUPPORTED_CLAIMS
    if stale_cited and stale_blocks:
        return VerificationStatus.BLOCKED_STALE_SOURCES
    if gaps or stale_cited:
        return VerificationStatus.PASSED_WITH_GAPS
    return VerificationStatus.PASSED
