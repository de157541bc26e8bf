"""Review: list candidates, accept (promote), reject, defer; every step audited without text.

Who may do what:
- see a candidate: whoever may read every one of its sources now;
- reject or defer it: whoever may also correct the memory of each of its
  sources' spaces (``authorize_correct``);
- accept it: ``authorize_reflect`` from its sources' spaces into the target.
  The target is the suggested scope unless the reviewer names another with
  ``promote_to_scope``; a broader target, or sources from several spaces,
  without that explicit promotion is refused (``scope_crossing_requires_promotion``).
A candidate whose source changed since it was proposed is refused
(``source_changed``): its spans may no longer say what it claims.
"""

import contextlib
from collections.abc import Sequence

import msgspec

from application.ports import Clock, MemoryStore
from application.ports.reflection import CandidateStore, GraphStore
from application.ports.reflection_records import Supersession
from application.reflection.accept_tokens import check_accept_token
from application.reflection.commands import (
    CandidateList,
    CandidateView,
    ReviewRequest,
    ReviewResult,
)
from application.reflection.merging import merged_records
from application.reflection.promotion import NativeRecords, native_records, promoted_records
from application.reflection.superseding import Superseding
from application.reflection.vectors import DerivedVectors
from application.trust.audit import AuditTrail
from application.trust.guard import denied, require_org, write_target
from application.trust.preview_tokens import PreviewTokens
from application.trust.reading import all_readable, read_sources
from domain.errors import ConflictError, InvalidInputError, NotFoundError, PolicyDeniedError
from domain.models import Source
from domain.policy import MemoryPolicyContext, PolicyDecision, authorize_correct, authorize_reflect
from domain.policy.decision import deny
from domain.reasons import ReasonCode
from domain.reflection.candidates import (
    ReflectionCandidate,
    ReviewAction,
    ReviewState,
    review_transition,
)
from domain.scopes import ScopeRef

__all__ = ["Reviewer"]

MAX_LIST = 200


class Reviewer:
    def __init__(
        self,
        *,
        store: MemoryStore,
        candidates: CandidateStore,
        graph: GraphStore,
        audit: AuditTrail,
        clock: Clock,
        tokens: PreviewTokens | None = None,
        vectors: DerivedVectors | None = None,
    ) -> None:
        #: checks the token of a promotion preview, when an accept carries one
        self._tokens = tokens
        self._store = store
        self._candidates = candidates
        self._graph = graph
        #: embeds what a promotion wrote, in the background (an accept never waits for it)
        self._vectors = vectors
        self._audit = audit
        self._clock = clock
        self._superseding = Superseding(store=store, graph=graph)

    async def list_candidates(
        self,
        org_id: str,
        policy: MemoryPolicyContext,
        state: ReviewState | None = None,
        after: str | None = None,
        limit: int = 50,
    ) -> CandidateList:
        """The candidates the caller may see, in id order, a page at a time."""
        require_org(policy, org_id)
        limit = max(1, min(limit, MAX_LIST))
        shown: list[ReflectionCandidate] = []
        cursor, exhausted = after, False
        while len(shown) < limit and not exhausted:
            page = await self._candidates.list_candidates(org_id, state, cursor, limit * 2)
            exhausted = len(page) < limit * 2
            readable = await all_readable(
                self._store, policy, org_id, [s for c in page for s in c.source_ids]
            )
            for c in page:
                cursor = c.candidate_id
                if all(s in readable for s in c.source_ids):
                    shown.append(c)
                    if len(shown) == limit:
                        break
        self._audit.note(
            policy,
            "candidates_list",
            ids=[c.candidate_id for c in shown],
            counts={"returned": len(shown)},
        )
        more = len(shown) == limit and not (exhausted and cursor == shown[-1].candidate_id)
        return CandidateList(
            candidates=[CandidateView.of(c) for c in shown],
            next_after=shown[-1].candidate_id if more and shown else None,
        )

    async def _visible(
        self, policy: MemoryPolicyContext, org_id: str, candidate_id: str
    ) -> ReflectionCandidate:
        found = (await self._candidates.get_candidates(org_id, [candidate_id])).get(candidate_id)
        if found is not None:
            readable = await all_readable(self._store, policy, org_id, found.source_ids)
            if all(s in readable for s in found.source_ids):
                return found
        raise NotFoundError(ReasonCode.NOT_FOUND, f"candidate {candidate_id} does not exist")

    async def candidate(
        self, org_id: str, candidate_id: str, policy: MemoryPolicyContext
    ) -> CandidateView:
        """One candidate the caller may see (``not_found`` otherwise), e.g. to review it."""
        require_org(policy, org_id)
        found = await self._visible(policy, org_id, candidate_id)
        self._audit.note(policy, "candidate_read", ids=[candidate_id], counts={"returned": 1})
        return CandidateView.of(found)

    async def review(self, request: ReviewRequest, policy: MemoryPolicyContext) -> ReviewResult:
        request.validate()
        require_org(policy, request.org_id)
        candidate = await self._visible(policy, request.org_id, request.candidate_id)
        action = f"candidate_{request.action}"
        state = review_transition(candidate.state, request.action)
        if state is None:
            raise ConflictError(
                ReasonCode.TRANSITION_NOT_ALLOWED,
                f"a {candidate.state} candidate cannot be given '{request.action}'",
            )
        if request.action is ReviewAction.ACCEPT:
            target = None
            if request.promote_to_scope is not None:
                target = write_target(policy, request.promote_to_scope, request.scope_key)
            return await self._accept(candidate, policy, target, action, request.preview_token)
        for ref in dict.fromkeys(candidate.input_scopes):
            decision = authorize_correct(policy, ref)
            if not decision.allowed:
                self._audit.note(policy, action, decision, ids=[candidate.candidate_id])
                raise denied(decision, "reviewing a candidate")
        reviewed = self._reviewed(candidate, policy, state)
        await self._candidates.save_candidate(reviewed)
        self._audit.note(
            policy,
            action,
            scope=candidate.suggested_scope.scope,
            scope_key=candidate.suggested_scope.scope_key,
            ids=[candidate.candidate_id],
        )
        return ReviewResult(candidate=CandidateView.of(reviewed))

    async def auto_accept(
        self, candidate: ReflectionCandidate, policy: MemoryPolicyContext
    ) -> None:
        """The documented auto-accept rule decided already; the policy still must agree.

        Each accept gets its own receipt id (the request's, extended by the candidate's).
        """
        own = msgspec.structs.replace(
            policy, audit_id=f"{policy.audit_id}{candidate.candidate_id[:12]}"
        )
        # a denial leaves it pending for a person; the denial is in the audit log
        with contextlib.suppress(PolicyDeniedError):
            await self._accept(candidate, own, None, "candidate_auto_accept")

    def _reviewed(
        self,
        candidate: ReflectionCandidate,
        policy: MemoryPolicyContext,
        state: ReviewState,
        **changes: object,
    ) -> ReflectionCandidate:
        assert policy.actor is not None  # require_org refuses a context without an actor
        return msgspec.structs.replace(
            candidate,
            state=state,
            reviewed_by=policy.actor.principal_id,
            reviewed_at=self._clock.now(),
            **changes,
        )

    async def _sources(
        self, candidate: ReflectionCandidate, policy: MemoryPolicyContext, action: str
    ) -> list[Source]:
        sources, refused = await read_sources(
            self._store, policy, candidate.org_id, candidate.source_ids
        )
        if refused:
            reason = next(iter(refused.values()))
            if reason in (ReasonCode.NOT_FOUND, ReasonCode.SOURCE_NOT_ACTIVE):
                raise ConflictError(
                    ReasonCode.SOURCE_CHANGED, "a source of the candidate is no longer active"
                )
            self._audit.note(policy, action, reason=reason, ids=[candidate.candidate_id])
            raise PolicyDeniedError(reason, "a source of the candidate may not be read")
        if any(candidate.source_hashes[s.source_id] != s.content_hash for s in sources):
            raise ConflictError(
                ReasonCode.SOURCE_CHANGED, "a source changed since the candidate was proposed"
            )
        return sources

    def _decide(
        self,
        policy: MemoryPolicyContext,
        sources: Sequence[Source],
        target: ScopeRef | None,
        candidate: ReflectionCandidate,
    ) -> PolicyDecision:
        inputs = list(dict.fromkeys(ScopeRef(s.scope, s.scope_key) for s in sources))
        if target is None:
            if len(inputs) > 1:
                # several spaces: only an explicit, allowed target may hold what mixes them
                return deny(
                    policy, candidate.suggested_scope, ReasonCode.SCOPE_CROSSING_REQUIRES_PROMOTION
                )
            return authorize_reflect(policy, inputs, candidate.suggested_scope)
        return authorize_reflect(policy, inputs, target, promoted=True)

    async def plan_accept(
        self,
        org_id: str,
        candidate_id: str,
        policy: MemoryPolicyContext,
        target: ScopeRef | None,
    ) -> tuple[ReflectionCandidate, list[Source], PolicyDecision]:
        """What accepting would read and the policy's decision, without writing (a preview)."""
        candidate = await self._visible(policy, org_id, candidate_id)
        if review_transition(candidate.state, ReviewAction.ACCEPT) is None:
            raise ConflictError(ReasonCode.TRANSITION_NOT_ALLOWED, "it cannot be accepted now")
        sources = await self._sources(candidate, policy, "candidate_accept_preview")
        return candidate, sources, self._decide(policy, sources, target, candidate)

    async def _accept(
        self,
        candidate: ReflectionCandidate,
        policy: MemoryPolicyContext,
        target: ScopeRef | None,
        action: str,
        token: str | None = None,
    ) -> ReviewResult:
        sources = await self._sources(candidate, policy, action)
        decision = self._decide(policy, sources, target, candidate)
        if not decision.allowed:
            self._audit.note(policy, action, decision, ids=[candidate.candidate_id])
            raise denied(decision, "promoting a candidate")
        where = ScopeRef(decision.scope, decision.scope_key)
        if token is not None:  # a promotion preview's: refused when stale or foreign
            try:
                check_accept_token(self._tokens, token, policy, candidate, sources, where)
            except (InvalidInputError, ConflictError) as no:
                self._audit.note(policy, action, reason=no.reason, ids=[candidate.candidate_id])
                raise
        named = await self._superseding.named(candidate, policy)
        chunks = {
            s.source_id: await self._store.chunks_of_source(candidate.org_id, s.source_id)
            for s in sources
        }
        assert policy.actor is not None
        records = native_records(
            candidate,
            target=where,
            sources=sources,
            chunks=chunks,
            reviewer=policy.actor.principal_id,
            decision_id=policy.audit_id,
            decision_reason=decision.reason,
            now=self._clock.now(),
        )
        org_id = candidate.org_id
        records = await merged_records(
            self._graph, records, lambda ids: all_readable(self._store, policy, org_id, ids)
        )
        await self._graph.promote(records.entities, records.edges, records.mentions)
        if self._vectors is not None:
            self._vectors.schedule(candidate.org_id)
        links: list[Supersession] = []
        if candidate.relation is None:  # a statement: its one entity may replace older ones
            links = await self._superseding.accepted(candidate, records.entities[0], named, policy)
        accepted = self._reviewed(
            candidate,
            policy,
            ReviewState.ACCEPTED,
            promoted_ids=tuple(records.ids),
            promoted_scope=where,
        )
        await self._candidates.save_candidate(accepted)
        self._audit.note(
            policy,
            action,
            decision,
            ids=[candidate.candidate_id, *records.ids],
            counts={**_counts(records), "supersedes": len(links)},
            hashes=dict(candidate.source_hashes),
        )
        return ReviewResult(
            candidate=CandidateView.of(accepted), promoted=promoted_records(records, links)
        )


def _counts(records: NativeRecords) -> dict[str, int]:
    return {
        "entities": len(records.entities),
        "edges": len(records.edges),
        "mentions": len(records.mentions),
    }
