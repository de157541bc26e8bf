"""The corrections use case: preview a correction, then apply it with the preview's token.

Both steps load the source, check that the caller may read its space and
may correct it (``authorize_correct``), and plan the transition with the one
lifecycle rule (``domain.lifecycle.plan``). Apply then writes the store and
every index at once; a hidden source is gone from the next search. Each step
leaves an audit receipt with ids, counts and reason codes, never text.
"""

from application.corrections.base import CorrectionUseCase
from application.corrections.commands import CorrectionRequest
from application.corrections.planning import corrected, drops_text, impact
from application.corrections.results import CorrectionApplied, CorrectionPreview
from application.trust.guard import correct_decision, denied, may_read, require_org
from application.trust.source_lifecycle import inspect_exposure
from domain.errors import ConflictError, NotFoundError, TesseraError
from domain.lifecycle import Exposure, Transition, plan
from domain.models import Source
from domain.policy import MemoryPolicyContext, authorize_read
from domain.reasons import ReasonCode
from domain.scopes import LifecycleState, ScopeRef

__all__ = ["CorrectionService"]


def audit_action(request: CorrectionRequest) -> str:
    return f"correct:{request.action}"


class CorrectionService(CorrectionUseCase):
    async def _load(
        self, ctx: MemoryPolicyContext, source_id: str, request: CorrectionRequest, action: str
    ) -> Source:
        """The source, once the caller may read its space and correct it."""
        require_org(ctx, ctx.org_id)
        request.validate()
        source = await self._store.get_source(ctx.org_id, source_id)
        if source is None:
            self._audit.note(ctx, action, reason=ReasonCode.NOT_FOUND, ids=[source_id])
            raise NotFoundError(ReasonCode.NOT_FOUND, f"no source with id {source_id!r}")
        ref = ScopeRef(source.scope, source.scope_key)
        for decision in (authorize_read(ctx, ref), correct_decision(ctx, source)):
            if not decision.allowed:
                self._audit.note(ctx, action, decision, ids=[source_id])
                if inspect_exposure(ctx, source, may_correct=False) is Exposure.NOTHING:
                    # as inspect answers: others learn nothing of a source they cannot see
                    raise NotFoundError(ReasonCode.NOT_FOUND, f"no source with id {source_id!r}")
                raise denied(decision, "correcting a source")
        return source

    async def _check_target(self, ctx: MemoryPolicyContext, source: Source, target: str) -> None:
        """A replacement or canonical source must be another source the caller may recall."""
        other = await self._store.get_source(ctx.org_id, target)
        if target == source.source_id or other is None or not may_read(ctx, other):
            raise NotFoundError(
                ReasonCode.NOT_FOUND, f"no other source with id {target!r} you may read"
            )
        if other.lifecycle is not LifecycleState.ACTIVE:
            raise ConflictError(
                ReasonCode.TRANSITION_NOT_ALLOWED,
                f"source {target} is {other.lifecycle}; a replacement or canonical source "
                "must be active",
            )

    async def _plan(
        self, ctx: MemoryPolicyContext, source: Source, request: CorrectionRequest, action: str
    ) -> Transition:
        outcome = plan(request.action, source.lifecycle, source.marks)
        if not outcome.allowed:
            self._audit.note(ctx, action, reason=outcome.reason, ids=[source.source_id])
            raise ConflictError(
                outcome.reason, f"{request.action} does not apply to a {source.lifecycle} source"
            )
        if request.target_id is not None:
            await self._check_target(ctx, source, request.target_id)
        if request.spans and max(s.end for s in request.spans) > len(source.content):
            raise ConflictError(
                ReasonCode.INVALID_REQUEST, "a span reaches past the end of the source's text"
            )
        return outcome

    def _corrected(
        self, ctx: MemoryPolicyContext, source: Source, req: CorrectionRequest, out: Transition
    ) -> Source:
        assert ctx.actor is not None  # require_org refuses a request without one
        return corrected(
            source,
            req,
            out,
            actor_id=ctx.user_id or ctx.actor.principal_id,
            agent_id=ctx.agent_id,
            now=self._clock.now(),
        )

    async def preview(
        self, ctx: MemoryPolicyContext, source_id: str, request: CorrectionRequest
    ) -> CorrectionPreview:
        action = "preview_" + audit_action(request)
        source = await self._load(ctx, source_id, request, action)
        outcome = await self._plan(ctx, source, request, action)
        after = self._corrected(ctx, source, request, outcome)
        chunks = await self._store.chunks_of_source(ctx.org_id, source_id)
        effect = impact(source, after, chunks, request)
        affected = [source_id] + ([request.target_id] if request.target_id else [])
        self._audit.note(
            ctx,
            action,
            ids=affected,
            scope=source.scope,
            scope_key=source.scope_key,
            counts={"chunks": len(chunks), "leaving": effect.leaving},
        )
        return CorrectionPreview(
            source_id=source_id,
            action=request.action,
            version=source.version,
            state=source.lifecycle,
            marks=sorted(source.marks),
            resulting_state=outcome.state,
            resulting_marks=sorted(outcome.marks),
            reversible=outcome.reversible,
            affected_source_ids=affected,
            affected_chunk_ids=[c.chunk_id for c in chunks],
            impact=effect,
            audit_action=audit_action(request),
            preview_token=self._tokens.issue(
                ctx, source_id, f"v{source.version}", request.digest()
            ),
        )

    async def apply(
        self,
        ctx: MemoryPolicyContext,
        source_id: str,
        request: CorrectionRequest,
        preview_token: str | None,
    ) -> CorrectionApplied:
        action = audit_action(request)
        source = await self._load(ctx, source_id, request, action)
        try:
            self._tokens.check(
                preview_token, ctx, source_id, f"v{source.version}", request.digest()
            )
        except TesseraError as refusal:
            self._audit.note(ctx, action, reason=refusal.reason, ids=[source_id])
            raise
        outcome = await self._plan(ctx, source, request, action)
        after = self._corrected(ctx, source, request, outcome)
        chunks = await self._store.chunks_of_source(ctx.org_id, source_id)
        dropping = drops_text(request.action)
        await self._store.update_source(after, expected_version=source.version, drop_text=dropping)
        if dropping:
            await self._index.remove(ctx.org_id, source_id)
            if self._derived is not None:
                await self._derived.forget(ctx.org_id, source_id)
        else:
            await self._index.update(ctx.org_id, source_id, after.lifecycle, after.recall)
        counts = {"chunks": len(chunks), "version": after.version}
        if self._derived is not None and after.superseded_by not in (None, source.superseded_by):
            # the replacement's derived records supersede this source's (SUPERSEDES edges)
            at = after.corrections[-1].at
            linked = await self._derived.supersede(ctx.org_id, source_id, after.superseded_by, at)
            counts |= {"derived_links": linked} if linked else {}
        self._audit.note(
            ctx,
            action,
            ids=[source_id] + ([request.target_id] if request.target_id else []),
            scope=source.scope,
            scope_key=source.scope_key,
            counts=counts,
            hashes={"content": source.content_hash},
        )
        return CorrectionApplied(
            source_id=source_id,
            action=request.action,
            version=after.version,
            state=after.lifecycle,
            marks=sorted(after.marks),
            superseded_by=after.superseded_by,
            duplicate_of=after.duplicate_of,
            reversible=outcome.reversible,
            applied_at=after.corrections[-1].at,
            affected_chunk_ids=[c.chunk_id for c in chunks],
        )
