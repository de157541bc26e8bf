"""Counting the redacted sources relevant to a query that the caller is not shown.

Issue 10: "redacted text is never returned, but a pack reports that relevant
withheld memory exists (counts, no text)". Redaction deletes the chunks and
their vectors, so the index cannot find them; the store matches the query's
meaningful words (folded, ``domain.withheld_match``) against each redacted
source's remainder (its summary, or the text outside the redacted spans,
without the redaction mark) in the spaces the caller may read (the same
``CandidateFilter`` as search), and answers the matches without their text.
The remainder's words are kept when the redaction is written, so this costs a
search what its matches cost, not a read of every redaction. Another's
sensitive source counts only for its owner, as search would admit it. Only
the number leaves this module.
"""

from application.ports import MemoryStore
from application.trust.guard import candidate_filter
from domain.lifecycle import Mark, owner_key
from domain.policy import MemoryPolicyContext
from domain.withheld_match import query_terms

__all__ = ["REDACTED_SCAN_LIMIT", "withheld_redacted"]

#: at most this many matching redacted sources are read per query: the count is a signal,
#: not a census
REDACTED_SCAN_LIMIT = 500


async def withheld_redacted(
    store: MemoryStore, policy: MemoryPolicyContext, org_id: str, query: str
) -> int:
    """How many redacted sources of the caller's readable spaces the query is about."""
    terms = query_terms(query)
    if not terms:
        return 0
    where = candidate_filter(policy)
    found = await store.redacted_sources(org_id, where.visible, terms, REDACTED_SCAN_LIMIT)
    return sum(
        1
        for source in found
        if Mark.SENSITIVE not in source.marks or owner_key(source.owner) in where.recall
    )
