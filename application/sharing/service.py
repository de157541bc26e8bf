"""Share a source or a promoted entity into another space: preview, then apply with its token.

The preview says what would become visible and to whom: every principal
of the organisation is asked, with its own policy context, whether it may
see the record now and would after (``domain.policy.reach``); the derived
records that would follow a source and those that stay; what stays
withheld. Apply writes only where ``authorize_share`` allows it (the target
space takes writes from the caller, and naming the target is the explicit
promotion), and only with a token of a preview of the same record in the
same state (409 ``source_changed`` otherwise). Both steps leave an audit
receipt with ids, counts and hashes, never text.

An entity keeps citing its sources when shared, so it reaches only those
who may read them: an entity derived from private memory shared into a
team space stays invisible to the team (counted as withheld, not leaked).
"""

import msgspec

from application.memory.service import MemoryService
from application.ports import Clock, IdGenerator, MemoryStore
from application.ports.reflection import GraphStore
from application.ports.reflection_records import Mention
from application.sharing.commands import (
    ReaderView,
    ShareApplied,
    ShareKind,
    SharePreview,
    ShareRequest,
    space_label,
)
from application.sharing.derived_copy import copies_for
from application.sharing.planning import SharePlan, SharePlanner
from application.sharing.source_copy import copy_request
from application.trust.audit import AuditTrail
from application.trust.guard import denied
from application.trust.preview_tokens import PreviewTokens
from application.trust.readers import OrgReaders
from domain.errors import ConflictError, InvalidInputError
from domain.models import PrincipalKind, Source
from domain.policy import MemoryPolicyContext
from domain.policy.reach import Reach, ReachCounts, counts_of, reach_of

__all__ = ["Sharing"]


class Sharing:
    def __init__(
        self,
        *,
        store: MemoryStore,
        graph: GraphStore | None,
        memory: MemoryService,
        readers: OrgReaders,
        audit: AuditTrail,
        clock: Clock,
        ids: IdGenerator,
        tokens: PreviewTokens,
    ) -> None:
        self._store = store
        self._graph = graph
        self._memory = memory
        self._readers = readers
        self._audit = audit
        self._clock = clock
        self._ids = ids
        self._tokens = tokens
        self._planner = SharePlanner(store=store, graph=graph, audit=audit)

    async def _audience(
        self, policy: MemoryPolicyContext, plan: SharePlan
    ) -> tuple[list[ReaderView], ReachCounts]:
        readers = await self._readers.of(policy)
        found = reach_of([ctx for _, ctx in readers], plan.target, plan.cited_after)
        seeing = {id(ctx) for ctx in found[Reach.VISIBLE]}
        newly = [
            ReaderView(principal_id=p.principal_id, name=p.name, kind=p.kind)
            for p, ctx in readers
            if id(ctx) in seeing and not plan.before(ctx)
        ]
        return newly, counts_of(found)

    def _token(self, policy: MemoryPolicyContext, request: ShareRequest, plan: SharePlan) -> str:
        return self._tokens.issue(
            policy, f"share:{request.kind}:{request.subject_id}", plan.state, request.digest()
        )

    async def preview(self, request: ShareRequest, policy: MemoryPolicyContext) -> SharePreview:
        """What the share would make visible, to whom, and what stays withheld; nothing changes."""
        action = "share_preview"
        plan = await self._planner.plan(request, policy, action)
        newly, reach = await self._audience(policy, plan)
        allowed = plan.decision.allowed
        users = sum(1 for r in newly if r.kind is PrincipalKind.USER)
        withheld = dict(plan.withheld)
        if request.kind is ShareKind.ENTITY:
            withheld["readers_without_sources"] = reach.hidden + reach.redacted + reach.denied
        self._audit.note(
            policy,
            action,
            plan.decision,
            ids=[request.subject_id, *plan.following.ids],
            counts={"newly_visible": len(newly), **plan.records},
        )
        return SharePreview(
            kind=request.kind,
            subject_id=request.subject_id,
            from_space=space_label(plan.source),
            to_space=space_label(plan.target),
            allowed=allowed,
            reason=plan.decision.reason,
            newly_visible=newly if allowed else [],
            newly_visible_users=users,
            newly_visible_agents=len(newly) - users,
            reach=reach,
            records=plan.records,
            derived_following=plan.following.ids if request.kind is ShareKind.SOURCE else [],
            derived_staying=plan.following.staying,
            withheld=withheld,
            marks_left_behind=plan.marks_left_behind,
            preview_token=self._token(policy, request, plan) if allowed else None,
        )

    async def apply(
        self, request: ShareRequest, policy: MemoryPolicyContext, preview_token: str | None
    ) -> ShareApplied:
        """Write the share previewed with ``preview_token``; refused as the preview said."""
        action = "share_apply"
        plan = await self._planner.plan(request, policy, action)
        if not plan.decision.allowed:
            self._audit.note(policy, action, plan.decision, ids=[request.subject_id])
            raise denied(plan.decision, "sharing")
        subject = f"share:{request.kind}:{request.subject_id}"
        try:
            self._tokens.check(preview_token, policy, subject, plan.state, request.digest())
        except (InvalidInputError, ConflictError) as refusal:
            self._audit.note(policy, action, reason=refusal.reason, ids=[request.subject_id])
            raise
        newly, _ = await self._audience(policy, plan)
        if plan.original is not None:
            shared_id, derived, hashes = await self._copy_source(policy, plan, plan.original)
        else:
            shared_id, derived, hashes = await self._copy_entity(policy, plan)
        self._audit.note(
            policy,
            action,
            plan.decision,
            ids=[request.subject_id, shared_id, *derived],
            scope=plan.target.scope,
            scope_key=plan.target.scope_key,
            counts={"newly_visible": len(newly), "derived": len(derived)},
            hashes=hashes,
        )
        users = sum(1 for r in newly if r.kind is PrincipalKind.USER)
        return ShareApplied(
            kind=request.kind,
            subject_id=request.subject_id,
            to_space=space_label(plan.target),
            shared_id=shared_id,
            derived_ids=derived,
            newly_visible_users=users,
            newly_visible_agents=len(newly) - users,
        )

    async def _copy_source(
        self, policy: MemoryPolicyContext, plan: SharePlan, source: Source
    ) -> tuple[str, list[str], dict[str, str]]:
        chunks = await self._store.chunks_of_source(policy.org_id, source.source_id)
        written = await self._memory.remember(copy_request(source, chunks, plan.target), policy)
        copy = await self._store.get_source(policy.org_id, written.source_id)
        # spans point into the text: records follow only a byte-identical copy
        if (
            copy is None
            or copy.content_hash != source.content_hash
            or self._graph is None
            or not plan.following.entities
        ):
            return written.source_id, [], {"content": source.content_hash}
        entities, edges, mentions = copies_for(
            plan.following,
            copy=copy,
            chunks=await self._store.chunks_of_source(policy.org_id, copy.source_id),
            target=plan.target,
            new_id=self._ids.new_id,
            actor=_actor(policy),
            decision_id=policy.audit_id,
            decision_reason=plan.decision.reason,
            now=self._clock.now(),
        )
        await self._graph.promote(entities, edges, mentions)
        derived = [e.entity_id for e in entities] + [e.edge_id for e in edges]
        return written.source_id, derived, {"content": source.content_hash}

    async def _copy_entity(
        self, policy: MemoryPolicyContext, plan: SharePlan
    ) -> tuple[str, list[str], dict[str, str]]:
        assert self._graph is not None  # an entity was found, so there is a graph
        (entity,) = plan.following.entities
        provenance = msgspec.structs.replace(
            entity.provenance,
            decision_id=policy.audit_id,
            decision_reason=plan.decision.reason,
            promoted_by=_actor(policy),
            promoted_at=self._clock.now(),
        )
        copy = msgspec.structs.replace(
            entity, entity_id=self._ids.new_id(), scope=plan.target, provenance=provenance
        )
        mentions = await self._graph.mentions_of(policy.org_id, [entity.entity_id])
        chunk_ids = mentions.get(entity.entity_id, [])
        await self._graph.promote(
            [copy], [], [Mention(entity_id=copy.entity_id, chunk_id=c) for c in chunk_ids]
        )
        return copy.entity_id, [], dict(entity.provenance.source_hashes)


def _actor(policy: MemoryPolicyContext) -> str:
    assert policy.actor is not None  # require_org refuses a context without one
    return policy.actor.principal_id

