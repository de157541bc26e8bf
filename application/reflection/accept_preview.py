"""Promotion preview: before a candidate is accepted into a space, who would see its records.

The records an accept writes cite the candidate's sources, and a reader
sees a derived record only if it may read the record's space and every
source (``domain.policy.reach``). So the preview asks each principal of the
organisation that may read the target space, with its own policy context:
``visible`` (would see the records), or why not: a cited source is
``hidden`` or ``redacted``, or the reader is ``denied`` it (another owner's
private memory, a space it is not a member of ...); and, per source, how
many of those readers may read it. With the policy's decision on the
accept itself and, when allowed, a token that accept may carry: a source
corrected since, or a candidate reviewed since, makes it 409
``source_changed``.
"""

import msgspec

from application.reflection.accept_tokens import accept_digest, accept_state, accept_subject
from application.reflection.review import Reviewer
from application.trust.audit import AuditTrail
from application.trust.guard import may_read, require_org, write_target
from application.trust.preview_tokens import PreviewTokens
from application.trust.readers import OrgReaders
from domain.models import Source
from domain.policy import MemoryPolicyContext, authorize_read
from domain.policy.reach import Cited, ReachCounts, counts_of, reach_of
from domain.reasons import ReasonCode
from domain.scopes import MemoryScope, ScopeRef

__all__ = ["PromotionPreview", "PromotionPreviewer", "SourceReach"]


class SourceReach(msgspec.Struct, frozen=True, kw_only=True):
    """Of the target space's readers, how many may read this source, and how many not."""

    source_id: str
    readable_by: int
    not_readable_by: int


class PromotionPreview(msgspec.Struct, frozen=True, kw_only=True):
    candidate_id: str
    #: the space the records would be kept in (``scope[/key]``)
    target: str
    allowed: bool
    reason: ReasonCode
    #: the target space's readers, by what they would see of the promoted records
    reach: ReachCounts
    sources: list[SourceReach]
    #: pass it to accept to refuse a stale preview (409 source_changed); None when refused
    preview_token: str | None = None


def _cited(source: Source) -> Cited:
    return Cited(
        ref=ScopeRef(source.scope, source.scope_key),
        lifecycle=source.lifecycle,
        marks=source.marks,
        owner=source.owner,
    )


class PromotionPreviewer:
    def __init__(
        self,
        *,
        reviewer: Reviewer,
        readers: OrgReaders,
        audit: AuditTrail,
        tokens: PreviewTokens,
    ) -> None:
        self._reviewer = reviewer
        self._readers = readers
        self._audit = audit
        self._tokens = tokens

    async def preview(
        self,
        org_id: str,
        candidate_id: str,
        policy: MemoryPolicyContext,
        promote_to_scope: MemoryScope | None = None,
        scope_key: str | None = None,
    ) -> PromotionPreview:
        """Counts of who would see the candidate's records in the target; nothing changes."""
        require_org(policy, org_id)
        target = None
        if promote_to_scope is not None:
            target = write_target(policy, promote_to_scope, scope_key)
        candidate, sources, decision = await self._reviewer.plan_accept(
            org_id, candidate_id, policy, target
        )
        where = ScopeRef(decision.scope, decision.scope_key)
        cited = [_cited(s) for s in sources]
        readers = [
            ctx for _, ctx in await self._readers.of(policy) if authorize_read(ctx, where).allowed
        ]
        found = reach_of(readers, where, cited)
        per_source = []
        for source in sources:
            may = sum(1 for r in readers if may_read(r, source))
            per_source.append(
                SourceReach(
                    source_id=source.source_id,
                    readable_by=may,
                    not_readable_by=len(readers) - may,
                )
            )
        counts = counts_of(found)
        self._audit.note(
            policy,
            "candidate_accept_preview",
            decision,
            ids=[candidate_id],
            counts={"visible": counts.visible, "withheld": len(readers) - counts.visible},
        )
        token = None
        if decision.allowed:
            token = self._tokens.issue(
                policy,
                accept_subject(candidate_id),
                accept_state(candidate, sources),
                accept_digest(where),
            )
        return PromotionPreview(
            candidate_id=candidate_id,
            target=f"{where.scope}/{where.scope_key}" if where.scope_key else str(where.scope),
            allowed=decision.allowed,
            reason=decision.reason,
            reach=counts,
            sources=per_source,
            preview_token=token,
        )
