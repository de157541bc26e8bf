"""A principal's synthesis runs: listed newest first, and one run's plan, to resume it.

Why its own use case: a person who planned a document yesterday (or before a
restart) must find the run again and carry on from the stage it reached. A
run belongs to the principal who planned it; anyone else is told it does
not exist, as every stage does. What is listed is the run's own bookkeeping
(the caller's query, output type, audience, outline titles, stage reached,
verification status, artifact id), never pack or draft text: those are shown
only by the stages themselves, which re-check the packs under the caller's
current policy first.
"""

from datetime import datetime

import msgspec

from application.synthesis.ports import SynthesisRunStore
from application.synthesis.records import OutlineSection, SynthesisRun
from application.trust.audit import AuditTrail
from application.trust.guard import require_org
from domain.errors import NotFoundError
from domain.policy import MemoryPolicyContext
from domain.reasons import ReasonCode
from domain.synthesis.outline import OutputType
from domain.synthesis.verdict import VerificationStatus

__all__ = ["MAX_LISTED", "RunSummary", "SynthesisRunList", "stage_of"]

MAX_LISTED = 100


def stage_of(run: SynthesisRun) -> str:
    """The last stage the run reached: planned, drafted, verified or remembered."""
    if run.artifact_source_id is not None:
        return "remembered"
    if run.verification is not None:
        return "verified"
    if run.draft is not None:
        return "drafted"
    return "planned"


class RunSummary(msgspec.Struct, frozen=True, kw_only=True):
    run_id: str
    query: str
    output_type: OutputType
    audience: str | None
    created_at: datetime
    updated_at: datetime
    stage: str
    outline: list[OutlineSection]
    status: VerificationStatus | None = None
    #: how many sections the last verification found without evidence
    gaps: int = 0
    artifact_source_id: str | None = None

    @classmethod
    def of(cls, run: SynthesisRun) -> "RunSummary":
        return cls(
            run_id=run.run_id,
            query=run.query,
            output_type=run.output_type,
            audience=run.audience,
            created_at=run.created_at,
            updated_at=run.updated_at,
            stage=stage_of(run),
            outline=list(run.outline),
            status=None if run.verification is None else run.verification.status,
            gaps=0 if run.verification is None else len(run.verification.gaps),
            artifact_source_id=run.artifact_source_id,
        )


class SynthesisRunList:
    def __init__(self, *, runs: SynthesisRunStore, audit: AuditTrail) -> None:
        self._runs = runs
        self._audit = audit

    async def recent(
        self, org_id: str, policy: MemoryPolicyContext, limit: int = 20
    ) -> list[RunSummary]:
        """The caller's own runs, newest first."""
        require_org(policy, org_id)
        assert policy.actor is not None  # require_org refuses a context without an actor
        found = await self._runs.runs_of(
            org_id, policy.actor.principal_id, max(1, min(limit, MAX_LISTED))
        )
        ids = [r.run_id for r in found]
        self._audit.note(policy, "synthesize_runs", ids=ids, counts={"returned": len(found)})
        return [RunSummary.of(r) for r in found]

    async def run(self, org_id: str, run_id: str, policy: MemoryPolicyContext) -> RunSummary:
        """One of the caller's runs (``not_found`` for anyone else's)."""
        require_org(policy, org_id)
        run = await self._runs.get_run(org_id, run_id)
        actor = policy.actor.principal_id if policy.actor else None
        if run is None or run.actor_id != actor:
            raise NotFoundError(ReasonCode.NOT_FOUND, f"synthesis run {run_id} does not exist")
        self._audit.note(policy, "synthesize_run", ids=[run_id], counts={"returned": 1})
        return RunSummary.of(run)
