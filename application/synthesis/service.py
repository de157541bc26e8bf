"""The synthesis use cases: each stage callable alone, each persisted and audited.

plan -> sections -> draft -> verify -> remember (docs/design.md#synthesis). A stage
whose predecessor has not run runs it first, so ``verify`` on a fresh plan
does the whole pipeline. A run belongs to the principal who planned it;
anyone else is told it does not exist. Every stage re-resolves the audience
and re-checks the packs under the caller's current policy before it renders.
"""

from typing import Any

import msgspec

from application.memory.commands import RememberRequest
from application.memory.service import MemoryService
from application.ports import Clock, Embedder, IdGenerator, MemoryStore
from application.ports.llm import LanguageModel
from application.retrieval.recall import Recall
from application.synthesis.bearing import screen_packs
from application.synthesis.commands import (
    DraftResult,
    PlanRequest,
    PlanResult,
    RememberedArtifact,
    SectionsResult,
    VerifyResult,
    check_drafter,
    verify_result,
)
from application.synthesis.drafters import ExtractiveDrafter, LLMDrafter
from application.synthesis.ports import Drafter, SynthesisRunStore
from application.synthesis.provenance import provenance
from application.synthesis.records import OutlineSection, SectionPack, SynthesisRun
from application.synthesis.sections import build_packs, expected_sources, materialize
from application.synthesis.verifier import verify_draft
from application.trust.audience import AudienceResolver, parse_space
from application.trust.audit import AuditTrail
from application.trust.guard import require_org
from domain.errors import ConflictError, InvalidInputError, NotFoundError
from domain.hashing import content_hash
from domain.policy import MemoryPolicyContext
from domain.reasons import ReasonCode
from domain.scopes import MemoryScope, SourceType
from domain.synthesis.outline import plan_sections

__all__ = ["SynthesisService"]


class SynthesisService:
    def __init__(
        self,
        *,
        recall: Recall,
        store: MemoryStore,
        memory: MemoryService,
        embedder: Embedder,
        runs: SynthesisRunStore,
        audience: AudienceResolver,
        audit: AuditTrail,
        clock: Clock,
        ids: IdGenerator,
        llm: LanguageModel | None = None,
    ) -> None:
        self._recall = recall
        self._store = store
        self._memory = memory
        self._embedder = embedder
        self._runs = runs
        self._audience = audience
        self._audit = audit
        self._clock = clock
        self._ids = ids
        self._llm = llm
        self._extractive = ExtractiveDrafter()

    def _drafter(self, name: str) -> Drafter:
        check_drafter(name)
        if name == "extractive":
            return self._extractive
        if self._llm is None:
            raise InvalidInputError(
                ReasonCode.LLM_NOT_CONFIGURED, "no language model is configured (TESSERA_LLM)"
            )
        return LLMDrafter(self._llm)

    def _note(self, policy: MemoryPolicyContext, stage: str, **fields: Any) -> None:
        """One receipt per stage; its id extends the request's audit id with the stage name,
        so a request that runs every stage (and remembers) leaves one receipt of each."""
        ctx = msgspec.structs.replace(
            policy, audit_id=f"{policy.audit_id}{stage}" if policy.audit_id else ""
        )
        self._audit.note(ctx, f"synthesize_{stage}", **fields)

    async def _run(self, org_id: str, run_id: str, policy: MemoryPolicyContext) -> SynthesisRun:
        require_org(policy, org_id)
        run = await self._runs.get_run(org_id, run_id)
        actor = policy.actor.principal_id if policy.actor else None
        if run is None or run.actor_id != actor:
            raise NotFoundError(ReasonCode.NOT_FOUND, f"synthesis run {run_id} does not exist")
        return run

    async def _save(self, run: SynthesisRun, **changes: object) -> SynthesisRun:
        updated = msgspec.structs.replace(run, updated_at=self._clock.now(), **changes)
        await self._runs.save_run(updated)
        return updated

    # -- plan ----------------------------------------------------------------

    async def plan(self, request: PlanRequest, policy: MemoryPolicyContext) -> PlanResult:
        request.validate()
        require_org(policy, request.org_id)
        assert policy.actor is not None  # require_org refuses a context without an actor
        readable = await self._audience.readable_by(policy, request.audience)
        now = self._clock.now()
        try:
            planned = plan_sections(request.query, request.output_type, request.outline)
        except ValueError as exc:
            raise InvalidInputError(ReasonCode.INVALID_REQUEST, str(exc)) from None
        run = SynthesisRun(
            run_id=self._ids.new_id(),
            org_id=request.org_id,
            actor_id=policy.actor.principal_id,
            created_at=now,
            updated_at=now,
            query=request.query,
            output_type=request.output_type,
            audience=request.audience,
            source_ids=list(request.source_ids),
            freshness=request.freshness,
        )
        run = msgspec.structs.replace(
            run,
            outline=[
                OutlineSection(title=p.title, needs=p.needs, evidence_query=p.evidence_query)
                for p in planned
            ],
        )
        # one retrieval per section serves the plan and the packs (kept as ids until the
        # sections stage materializes and re-checks them)
        packs = await build_packs(self._recall, run, policy, readable, now)
        outline = [
            msgspec.structs.replace(section, expected_source_ids=expected_sources(pack))
            for section, pack in zip(run.outline, packs, strict=True)
        ]
        run = msgspec.structs.replace(run, outline=outline, packs=packs)
        await self._runs.save_run(run)
        self._note(
            policy,
            "plan",
            ids=[run.run_id],
            counts={"sections": len(outline)},
            hashes={"query": content_hash(request.query)},
        )
        return PlanResult(
            run_id=run.run_id,
            query=run.query,
            output_type=run.output_type,
            audience=run.audience,
            outline=outline,
        )

    # -- sections ------------------------------------------------------------

    async def _packs(
        self, run: SynthesisRun, policy: MemoryPolicyContext, rebuild: bool
    ) -> tuple[SynthesisRun, list[SectionPack]]:
        readable = await self._audience.readable_by(policy, run.audience)
        if run.packs is None or rebuild:
            stored = await build_packs(self._recall, run, policy, readable, self._clock.now())
            run = await self._save(run, packs=stored, draft=None, verification=None)
        assert run.packs is not None
        return run, await materialize(self._store, run, run.packs, policy, readable)

    async def sections(
        self, org_id: str, run_id: str, policy: MemoryPolicyContext
    ) -> SectionsResult:
        run = await self._run(org_id, run_id, policy)
        run, packs = await self._packs(run, policy, rebuild=run.packs is None)
        self._note(
            policy,
            "sections",
            ids=[run.run_id, *(cid for p in packs for cid in p.derived_ids)],
            counts={
                "returned": sum(len(p.snippets) for p in packs),
                "hidden": sum(p.hidden_count for p in packs),
                "withheld": sum(p.denied_count for p in packs),
            },
        )
        return SectionsResult(run_id=run.run_id, sections=packs)

    # -- draft ---------------------------------------------------------------

    async def _draft(
        self, run: SynthesisRun, policy: MemoryPolicyContext, drafter: str
    ) -> SynthesisRun:
        writer = self._drafter(drafter)
        run, packs = await self._packs(run, policy, rebuild=False)
        # a drafter never sees what does not bear on the question; the sources it leaves
        # out, here and in the drafter, are reported per section
        bearing, off_topic = await screen_packs(
            self._store, self._embedder, run.org_id, run.query, packs
        )
        draft = await writer.draft(run.query, run.outline, bearing)
        draft = msgspec.structs.replace(
            draft,
            sections=[
                msgspec.structs.replace(section, left_out=[*off, *section.left_out])
                for section, off in zip(draft.sections, off_topic, strict=True)
            ],
        )
        run = await self._save(run, draft=draft, verification=None)
        self._note(
            policy,
            "draft",
            ids=[run.run_id],
            counts={"sentences": sum(len(s.sentences) for s in draft.sections)},
            hashes={"text": content_hash(draft.markdown)},
        )
        return run

    async def draft(
        self, org_id: str, run_id: str, policy: MemoryPolicyContext, drafter: str = "extractive"
    ) -> DraftResult:
        check_drafter(drafter)  # bad input is refused before the run is looked up
        run = await self._draft(await self._run(org_id, run_id, policy), policy, drafter)
        assert run.draft is not None
        return DraftResult.of(run.run_id, run.draft)

    # -- verify --------------------------------------------------------------

    async def _verify(self, run: SynthesisRun, policy: MemoryPolicyContext) -> SynthesisRun:
        if run.draft is None:
            run = await self._draft(run, policy, "extractive")
        run, packs = await self._packs(run, policy, rebuild=False)
        assert run.draft is not None and run.packs is not None
        verification = await verify_draft(
            store=self._store,
            embedder=self._embedder,
            run=run,
            draft=run.draft,
            packs=packs,
            stored=run.packs,
            now=self._clock.now(),
        )
        run = await self._save(run, verification=verification)
        self._note(
            policy,
            "verify",
            ids=[run.run_id],
            counts={
                "sentences": verification.sentences,
                "unsupported": len(verification.unsupported_claims),
                "gaps": len(verification.gaps),
                "hidden": verification.hidden_counts.hidden,
            },
        )
        return run

    async def verify(self, org_id: str, run_id: str, policy: MemoryPolicyContext) -> VerifyResult:
        run = await self._verify(await self._run(org_id, run_id, policy), policy)
        assert run.verification is not None
        return verify_result(run.run_id, run.verification)

    # -- remember ------------------------------------------------------------

    async def remember(
        self,
        org_id: str,
        run_id: str,
        policy: MemoryPolicyContext,
        scope: MemoryScope | None = None,
        scope_key: str | None = None,
    ) -> RememberedArtifact:
        """The verified artifact as memory, through the normal write policy."""
        run = await self._run(org_id, run_id, policy)
        if run.verification is None:
            run = await self._verify(run, policy)
        assert run.draft is not None and run.verification is not None
        if run.verification.status.blocked:
            raise ConflictError(
                ReasonCode.SYNTHESIS_BLOCKED,
                f"the draft did not pass verification ({run.verification.status})",
            )
        if scope is None and run.audience and run.audience.startswith("space:"):
            space = parse_space(run.audience.removeprefix("space:"))
            scope, scope_key = space.scope, space.scope_key
        metadata, cited = provenance(run, run.draft, run.verification, policy)
        result = await self._memory.remember(
            RememberRequest(
                org_id=org_id,
                content=run.draft.markdown,
                scope=scope or MemoryScope.PRIVATE,
                scope_key=scope_key,
                source_type=SourceType.DOCUMENT,
                source_uri=f"tessera:synthesis/{run.run_id}",
                metadata=metadata,
            ),
            policy,
        )
        await self._save(run, artifact_source_id=result.source_id, cited_source_ids=cited)
        return RememberedArtifact(
            run_id=run.run_id,
            source_id=result.source_id,
            text_hash=content_hash(run.draft.markdown),
            status=run.verification.status,
        )

    async def artifacts_citing(self, org_id: str, source_id: str) -> list[str]:
        """Ids of the remembered artifacts that cite ``source_id``."""
        runs = await self._runs.runs_citing(org_id, source_id)
        return [r.artifact_source_id for r in runs if r.artifact_source_id]
