"""Counting the redacted sources relevant to a query that the caller is not shown.

Redacted text is never returned, but a pack reports that relevant withheld
memory exists (counts, no text). Redaction deletes the chunks and
their vectors, so the index cannot find them; the store matches the query's
meaningful words (folded, ``domain.withheld_match``) against each redacted
source's remainder (its summary, or the text outside the redacted spans,
without the redaction mark) in the spaces the caller may read (the same
``CandidateFilter`` as search), and answers the matches without their text.
The remainder's words are kept when the redaction is written, so this costs a
search what its matches cost, not a read of every redaction. Another's
sensitive source counts only for its owner, as search would admit it. Only
the number leaves this module.

A search or pack narrowed by ``filters`` counts only the redacted sources its
filter admits, decided by the same rule (``SearchFilters.matches``) on the
source's own facts: its space, type, metadata (import id, participants) and
time. Its chunks are gone, so a speaker filter admits none of them.
"""

from application.ports import MemoryStore
from application.trust.guard import candidate_filter
from domain.lifecycle import Mark, owner_key
from domain.models import Source
from domain.policy import MemoryPolicyContext
from domain.query_words import QueryWords
from domain.search_filters import FilterFacts, SearchFilters

__all__ = ["REDACTED_SCAN_LIMIT", "withheld_redacted"]

#: at most this many matching redacted sources are read per query: the count is a signal,
#: not a census
REDACTED_SCAN_LIMIT = 500


def _facts(source: Source) -> FilterFacts:
    return FilterFacts(
        scope=source.scope,
        scope_key=source.scope_key,
        source_type=source.source_type,
        metadata=dict(source.metadata),
        occurred_at=source.occurred_at,
    )


async def withheld_redacted(
    store: MemoryStore,
    policy: MemoryPolicyContext,
    org_id: str,
    question: QueryWords,
    filters: SearchFilters | None = None,
) -> int:
    """How many redacted sources of the caller's readable spaces (that ``filters``
    admits) the query is about."""
    terms = question.folded
    if not terms:
        return 0
    where = candidate_filter(policy)
    found = await store.redacted_sources(org_id, where.visible, terms, REDACTED_SCAN_LIMIT)
    counted = [
        s for s in found if Mark.SENSITIVE not in s.marks or owner_key(s.owner) in where.recall
    ]
    if filters is None or filters.is_empty or not counted:
        return len(counted)
    counted = [s for s in counted if filters.admits_space(s.scope, s.scope_key)]
    if not counted or (not filters.facet_groups() and not filters.has_time):
        return len(counted)
    # type, metadata and time live on the source itself: read the few that matched
    sources = await store.get_sources(org_id, [s.source_id for s in counted])
    return sum(
        1
        for s in counted
        if s.source_id in sources and filters.matches(_facts(sources[s.source_id]))
    )
