"""What a share preview and apply both look at, found the same way for both.

Why one planner: the preview's token is bound to the state it saw (the
source's version and the records that would follow it, or the entity's
space and source hashes), so apply must see the record exactly as the
preview did, or refuse with ``source_changed``.
"""

import hashlib
from collections.abc import Callable
from typing import NoReturn

import msgspec

from application.ports import MemoryStore
from application.ports.reflection import GraphStore
from application.ports.reflection_records import DerivedEdge, DerivedEntity
from application.sharing.commands import ShareKind, ShareRequest, space_label
from application.sharing.derived_copy import Following, following
from application.trust.audit import AuditTrail
from application.trust.guard import may_read, require_org, write_target
from application.trust.reading import unreadable_reason
from domain.errors import ConflictError, InvalidInputError, NotFoundError, PolicyDeniedError
from domain.lifecycle import Mark
from domain.models import Source, owner_of
from domain.policy import MemoryPolicyContext, PolicyDecision, authorize_reflect, authorize_share
from domain.policy.reach import Cited, derived_read_reason
from domain.reasons import ReasonCode
from domain.scopes import LifecycleState, ScopeRef

__all__ = ["SharePlan", "SharePlanner"]


class SharePlan(msgspec.Struct, kw_only=True):
    """What one preview or apply found: the same for both, so they cannot disagree."""

    source: ScopeRef
    target: ScopeRef
    decision: PolicyDecision
    #: what a reader must be able to read to see the record after the share
    cited_after: list[Cited]
    before: Callable[[MemoryPolicyContext], bool]
    state: str
    records: dict[str, int]
    withheld: dict[str, int]
    following: Following
    marks_left_behind: list[Mark]
    original: Source | None = None


def _short(*parts: str) -> str:
    return hashlib.sha256("\n".join(parts).encode("utf-8")).hexdigest()[:16]


class SharePlanner:
    def __init__(self, *, store: MemoryStore, graph: GraphStore | None, audit: AuditTrail) -> None:
        self._store = store
        self._graph = graph
        self._audit = audit

    def _missing(
        self, policy: MemoryPolicyContext, action: str, request: ShareRequest
    ) -> NoReturn:
        self._audit.note(policy, action, reason=ReasonCode.NOT_FOUND, ids=[request.subject_id])
        raise NotFoundError(
            ReasonCode.NOT_FOUND, f"no {request.kind} with id {request.subject_id!r} you may read"
        )

    async def _plan_source(
        self, policy: MemoryPolicyContext, request: ShareRequest, target: ScopeRef, action: str
    ) -> SharePlan:
        source = await self._store.get_source(policy.org_id, request.subject_id)
        reason = unreadable_reason(policy, source)
        if source is None or reason is ReasonCode.NOT_FOUND:
            self._missing(policy, action, request)
        assert source is not None
        if reason is ReasonCode.SOURCE_NOT_ACTIVE:
            raise ConflictError(reason, f"a {source.lifecycle} source is not shared")
        if reason is not None or Mark.SENSITIVE in source.marks:
            why = reason or ReasonCode.SENSITIVE_SOURCE
            self._audit.note(policy, action, reason=why, ids=[source.source_id])
            raise PolicyDeniedError(why, "this source may not be shared")
        ref = ScopeRef(source.scope, source.scope_key)
        citing: list[DerivedEntity] = []
        edges: list[DerivedEdge] = []
        if self._graph is not None:
            citing = await self._graph.entities_citing(policy.org_id, [source.source_id])
            for entity in citing:
                edges += await self._graph.edges_of(policy.org_id, entity.entity_id)
        follows = following(source.source_id, citing, edges)
        chunks = await self._store.chunks_of_source(policy.org_id, source.source_id)
        assert policy.actor is not None
        owner = owner_of(target.scope, target.scope_key, policy.actor.principal_id)
        return SharePlan(
            source=ref,
            target=target,
            decision=authorize_share(policy, ref, target, promoted=True),
            cited_after=[Cited(ref=target, lifecycle=LifecycleState.ACTIVE, owner=owner)],
            before=lambda reader: may_read(reader, source),
            state=f"v{source.version}-{_short(*follows.ids)[:8]}",
            records={
                "sources": 1,
                "chunks": len(chunks),
                "entities": len(follows.entities),
                "edges": len(follows.edges),
            },
            withheld={"derived_staying": follows.staying},
            following=follows,
            marks_left_behind=sorted(source.marks),
            original=source,
        )

    async def _plan_entity(
        self, policy: MemoryPolicyContext, request: ShareRequest, target: ScopeRef, action: str
    ) -> SharePlan:
        found = (
            await self._graph.get_entities(policy.org_id, [request.subject_id])
            if self._graph
            else {}
        )
        entity = found.get(request.subject_id)
        if entity is None:
            self._missing(policy, action, request)
        assert entity is not None
        lifecycles = await self._store.source_lifecycles(policy.org_id, list(entity.source_ids))
        cited = [
            Cited(
                ref=ScopeRef(s.scope, s.scope_key),
                lifecycle=s.lifecycle,
                marks=s.marks,
                owner=s.owner,
            )
            for s in lifecycles.values()
        ]
        if len(cited) != len(entity.source_ids) or (
            derived_read_reason(policy, entity.scope, cited) is not ReasonCode.ALLOWED
        ):
            self._missing(policy, action, request)
        inputs = list(dict.fromkeys([entity.scope, *(c.ref for c in cited)]))
        digest = [f"{k}={v}" for k, v in sorted(entity.provenance.source_hashes.items())]
        return SharePlan(
            source=entity.scope,
            target=target,
            decision=authorize_reflect(policy, inputs, target, promoted=True),
            cited_after=cited,
            before=lambda reader: (
                derived_read_reason(reader, entity.scope, cited) is ReasonCode.ALLOWED
            ),
            state="e" + _short(space_label(entity.scope), *digest),
            records={"entities": 1},
            withheld={},
            following=Following(entities=[entity], edges=[], staying=0),
            marks_left_behind=[],
        )

    async def plan(
        self, request: ShareRequest, policy: MemoryPolicyContext, action: str
    ) -> SharePlan:
        require_org(policy, request.org_id)
        request.validate()
        target = write_target(policy, request.scope, request.scope_key)
        if request.kind is ShareKind.SOURCE:
            plan = await self._plan_source(policy, request, target, action)
        else:
            plan = await self._plan_entity(policy, request, target, action)
        if plan.source == target:
            raise InvalidInputError(
                ReasonCode.INVALID_REQUEST, f"the {request.kind} is in that space already"
            )
        return plan

