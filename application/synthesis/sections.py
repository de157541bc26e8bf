"""Section packs: each section's evidence through the one retrieve-then-recheck seam.

Retrieval runs under the actor's policy (candidates filtered inside the
index, every chunk re-checked against the store); then the audience test
drops what the audience may not read, counting it as hidden. A chunk feeds
one section only (the first that finds it), so sections do not repeat each
other. Packs are kept as ids; ``materialize`` loads the text again and
re-checks both actor and audience before anything is rendered.
"""

from collections.abc import Sequence
from datetime import datetime, timedelta

import msgspec

from application.ports import MemoryStore
from application.retrieval.recall import Recall
from application.synthesis.records import (
    PackItem,
    SectionPack,
    Snippet,
    StoredPack,
    SynthesisRun,
)
from application.trust.audience import ReadableBy
from application.trust.guard import may_read
from domain.models import Chunk
from domain.policy import MemoryPolicyContext

__all__ = ["PACK_ITEMS", "build_packs", "expected_sources", "is_stale", "materialize"]

#: candidates retrieved per section before the audience test
_CANDIDATES = 24
#: chunks kept per section pack
PACK_ITEMS = 6
#: sources the plan names per section
_EXPECTED = 5


class _Query(msgspec.Struct, frozen=True, kw_only=True):
    org_id: str
    query: str
    as_of: datetime | None = None


def is_stale(chunk: Chunk, run: SynthesisRun, now: datetime) -> bool:
    if run.freshness.max_age_days is None:
        return False
    when = chunk.occurred_at or chunk.created_at
    return when < now - timedelta(days=run.freshness.max_age_days)


def _in_scope(run: SynthesisRun, chunk: Chunk) -> bool:
    return not run.source_ids or chunk.source_id in run.source_ids


def expected_sources(pack: StoredPack) -> list[str]:
    """The sources a section's pack draws on, best first: what the plan shows."""
    return list(dict.fromkeys(i.source_id for i in pack.items))[:_EXPECTED]


async def build_packs(
    recall: Recall,
    run: SynthesisRun,
    policy: MemoryPolicyContext,
    readable_by: ReadableBy,
    now: datetime,
) -> list[StoredPack]:
    used: set[str] = set()
    packs = []
    for section in run.outline:
        found, notes, denied = await recall.retrieve(
            _Query(org_id=run.org_id, query=section.evidence_query), policy, _CANDIDATES
        )
        items: list[PackItem] = []
        hidden: list[str] = []
        for r in found:
            chunk = r.chunk
            if not _in_scope(run, chunk) or chunk.chunk_id in used:
                continue
            if not readable_by(chunk):
                hidden.append(chunk.chunk_id)
                continue
            if len(items) < PACK_ITEMS:
                used.add(chunk.chunk_id)
                items.append(
                    PackItem(
                        chunk_id=chunk.chunk_id,
                        source_id=chunk.source_id,
                        # too old for the run's freshness policy, or marked stale or
                        # superseded by a correction (domain.lifecycle)
                        stale=is_stale(chunk, run, now)
                        or notes[chunk.chunk_id].stale
                        or notes[chunk.chunk_id].superseded_by is not None,
                    )
                )
        reasons = []
        if not items:
            reasons.append("no_readable_evidence")
        if hidden:
            reasons.append("audience_hidden")
        if denied:
            reasons.append("policy_withheld")
        if any(i.stale for i in items):
            reasons.append("stale_sources")
        packs.append(
            StoredPack(
                title=section.title,
                items=items,
                hidden_count=len(hidden),
                denied_count=denied,
                hidden_chunk_ids=hidden,
                reasons=reasons,
                unresolved=[] if items else [section.needs],
            )
        )
    return packs


async def materialize(
    store: MemoryStore,
    run: SynthesisRun,
    packs: Sequence[StoredPack],
    policy: MemoryPolicyContext,
    readable_by: ReadableBy,
) -> list[SectionPack]:
    """The packs with their text, loaded now and re-checked for actor and audience."""
    ids = [i.chunk_id for p in packs for i in p.items]
    chunks = await store.get_chunks(run.org_id, ids)
    out = []
    for pack in packs:
        snippets = []
        withheld = 0
        for item in pack.items:
            chunk = chunks.get(item.chunk_id)
            if chunk is None or not may_read(policy, chunk) or not readable_by(chunk):
                withheld += 1
                continue
            snippets.append(
                Snippet(
                    source_id=chunk.source_id,
                    chunk_id=chunk.chunk_id,
                    text=chunk.text,
                    stale=item.stale,
                    occurred_at=chunk.occurred_at,
                )
            )
        reasons = list(pack.reasons)
        if withheld and "policy_withheld" not in reasons:
            reasons.append("policy_withheld")
        if not snippets and "no_readable_evidence" not in reasons:
            reasons.append("no_readable_evidence")
        out.append(
            SectionPack(
                title=pack.title,
                source_ids=list(dict.fromkeys(s.source_id for s in snippets)),
                derived_ids=[s.chunk_id for s in snippets],
                snippets=snippets,
                hidden_count=pack.hidden_count,
                denied_count=pack.denied_count + withheld,
                stale_source_ids=list(dict.fromkeys(s.source_id for s in snippets if s.stale)),
                unresolved_claims=pack.unresolved
                or ([f"no readable evidence for {pack.title}"] if not snippets else []),
                reasons=reasons,
            )
        )
    return out
