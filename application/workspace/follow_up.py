"""What a person should look at next: drafts with open gaps, and sources to review.

Why its own use case: the workspace's home shows "synthesis drafts with open
verification gaps" and "suggested follow-up (stale or duplicate sources to
review)". No lifecycle job flags these today, so the rule is here, simple and
bounded in cost, over what the caller may read:

- **Drafts with open gaps**: the caller's own synthesis runs (the newest
  ``RUNS_SCANNED``) that have a draft but no remembered artifact, and are not
  verified yet, or whose verification found gaps, unsupported claims or a
  blocked status. Only the run's bookkeeping is shown (the caller's own
  query, counts), never pack or draft text.
- **Marked stale**: active sources carrying the ``stale`` mark (a person
  said so) among the recent ones (below).
- **Past freshness**: sources a verification of those runs found older than
  the run's freshness policy (``stale_source_ids``).
- **Likely duplicates**: among the recent sources, one with exactly the same
  text (content hash) as an older one, for notes, documents, emails, web
  pages and files of at least ``MIN_CHARS`` characters (conversation turns
  repeat short replies by nature).

"Recent" is the newest ``SCANNED`` sources among the organisation's last
``CHANGES_SCANNED`` changes (the store's change sequence: a source written,
embedded or corrected lately), then kept only when the caller may read them
and they are active. Why the change sequence and not "the newest sources of
the caller's spaces": that listing sorts every active source of those spaces
(measured at 10k sources: the home page went from 94 to 482 ms p50 under
load), while the sequence is an index range read. The price: in a large
organisation busy with other people's memory, fewer of the recent changes
are the caller's to see, so fewer suggestions; none is ever wrong.

Every source is re-checked with ``may_read`` before its excerpt is shown, so
hidden, redacted, deleted or other-scope memory never appears. Cost: one
runs listing, two change-sequence reads and one batch source read. Audited
with ids and counts.
"""

from datetime import datetime
from enum import StrEnum

import msgspec

from application.ports import MemoryStore
from application.synthesis.ports import SynthesisRunStore
from application.synthesis.records import SynthesisRun
from application.synthesis.run_list import stage_of
from application.trust.audit import AuditTrail
from application.trust.guard import may_read, require_org
from application.workspace.activity import excerpt
from application.workspace.space_choice import SpaceChoice
from domain.lifecycle import Mark
from domain.models import Source
from domain.policy import MemoryPolicyContext
from domain.scopes import LifecycleState, MemoryScope, SourceType
from domain.synthesis.verdict import VerificationStatus

__all__ = ["DraftGaps", "FollowUp", "FollowUpFeed", "SourceFollowUp", "Why"]

#: the organisation's latest changes, the sources among them, and the caller's own runs
#: looked at; what each list shows at most
CHANGES_SCANNED = 300
SCANNED = 100
RUNS_SCANNED = 20
SHOWN = 5
MIN_CHARS = 40
_DUPLICABLE = frozenset(
    {SourceType.NOTE, SourceType.DOCUMENT, SourceType.EMAIL, SourceType.WEB, SourceType.FILE}
)


class Why(StrEnum):
    MARKED_STALE = "marked_stale"
    PAST_FRESHNESS = "past_freshness"
    LIKELY_DUPLICATE = "likely_duplicate"


class SourceFollowUp(msgspec.Struct, frozen=True, kw_only=True):
    source_id: str
    why: Why
    excerpt: str
    source_type: SourceType
    scope: MemoryScope
    scope_key: str | None
    created_at: datetime
    #: for a likely duplicate: the older source with the same text
    same_as: str | None = None


class DraftGaps(msgspec.Struct, frozen=True, kw_only=True):
    run_id: str
    query: str
    #: drafted (not verified yet) or verified
    stage: str
    status: VerificationStatus | None
    gaps: int
    unsupported: int
    stale_sources: int
    updated_at: datetime


class FollowUp(msgspec.Struct, frozen=True, kw_only=True):
    drafts: list[DraftGaps]
    sources: list[SourceFollowUp]


def _open(run: SynthesisRun) -> bool:
    if run.draft is None or run.artifact_source_id is not None:
        return False
    v = run.verification
    return v is None or bool(v.gaps or v.unsupported_claims) or v.status.blocked


def _audience_in(run: SynthesisRun, within: SpaceChoice | None) -> bool:
    """A run for a space's readers is in that space; one for a person only when unfiltered."""
    if within is None:
        return True
    if not run.audience or not run.audience.startswith("space:"):
        return False
    return within.holds_text(run.audience.removeprefix("space:"))


class FollowUpFeed:
    def __init__(self, *, store: MemoryStore, runs: SynthesisRunStore, audit: AuditTrail) -> None:
        self._store = store
        self._runs = runs
        self._audit = audit

    async def suggest(
        self, ctx: MemoryPolicyContext, within: SpaceChoice | None = None
    ) -> FollowUp:
        require_org(ctx, ctx.org_id)
        assert ctx.actor is not None  # require_org refuses a context without an actor
        runs = [
            r
            for r in await self._runs.runs_of(ctx.org_id, ctx.actor.principal_id, RUNS_SCANNED)
            if _open(r) and _audience_in(r, within)
        ]
        drafts = [_gaps(r) for r in runs[:SHOWN]]
        head = await self._store.change_position(ctx.org_id)
        window = max(0, head.sequence - CHANGES_SCANNED)
        changed = await self._store.changed_sources(ctx.org_id, window, CHANGES_SCANNED)
        recent = [source_id for _, source_id in reversed(changed.changes)][:SCANNED]
        past = {s for r in runs if r.verification for s in r.verification.stale_source_ids}
        wanted = list(dict.fromkeys([*recent, *sorted(past)]))
        found = await self._store.get_sources(ctx.org_id, wanted)
        readable = [
            s
            for s in (found.get(i) for i in wanted)
            if s is not None
            and s.lifecycle is LifecycleState.ACTIVE
            and may_read(ctx, s)
            and (within is None or within.holds(s.scope, s.scope_key))
        ]
        sources = _suggestions(readable, past)[:SHOWN]
        self._audit.note(
            ctx,
            "workspace_follow_up",
            ids=[s.source_id for s in sources],
            counts={"drafts": len(drafts), "sources": len(sources), "scanned": len(wanted)},
        )
        return FollowUp(drafts=drafts, sources=sources)


def _gaps(run: SynthesisRun) -> DraftGaps:
    v = run.verification
    return DraftGaps(
        run_id=run.run_id,
        query=run.query,
        stage=stage_of(run),
        status=None if v is None else v.status,
        gaps=0 if v is None else len(v.gaps),
        unsupported=0 if v is None else len(v.unsupported_claims),
        stale_sources=0 if v is None else len(v.stale_source_ids),
        updated_at=run.updated_at,
    )


def _suggestions(readable: list[Source], past: set[str]) -> list[SourceFollowUp]:
    shown: list[SourceFollowUp] = []
    first_with: dict[str, str] = {}
    # oldest first, so a duplicate names the older source as the one it repeats
    for s in sorted(readable, key=lambda s: (s.created_at, s.source_id)):
        why, same_as = None, None
        if Mark.STALE in s.marks:
            why = Why.MARKED_STALE
        elif s.source_id in past:
            why = Why.PAST_FRESHNESS
        elif s.source_type in _DUPLICABLE and len(s.content) >= MIN_CHARS:
            same_as = first_with.setdefault(s.content_hash, s.source_id)
            if same_as != s.source_id:
                why = Why.LIKELY_DUPLICATE
        if why is not None:
            shown.append(
                SourceFollowUp(
                    source_id=s.source_id,
                    why=why,
                    excerpt=excerpt(s.content),
                    source_type=s.source_type,
                    scope=s.scope,
                    scope_key=s.scope_key,
                    created_at=s.created_at,
                    same_as=same_as if why is Why.LIKELY_DUPLICATE else None,
                )
            )
    shown.sort(key=lambda f: f.created_at, reverse=True)  # newest first, as home lists
    return shown
