"""Every synthesis stage in one call: plan, sections, draft, verify, and remember if asked.

What ``POST /api/synthesize``, ``tessera synthesize "topic"`` and the MCP
tools run; each stage is the same use case a caller could run alone.
"""

from application.synthesis.commands import PlanRequest, SynthesisResult
from application.synthesis.service import SynthesisService
from domain.policy import MemoryPolicyContext
from domain.scopes import MemoryScope

__all__ = ["synthesize"]


async def synthesize(
    synthesis: SynthesisService,
    request: PlanRequest,
    policy: MemoryPolicyContext,
    *,
    drafter: str = "extractive",
    remember: bool = False,
    scope: MemoryScope | None = None,
    scope_key: str | None = None,
) -> SynthesisResult:
    plan = await synthesis.plan(request, policy)
    org_id, run_id = request.org_id, plan.run_id
    sections = await synthesis.sections(org_id, run_id, policy)
    draft = await synthesis.draft(org_id, run_id, policy, drafter)
    verification = await synthesis.verify(org_id, run_id, policy)
    artifact = None
    if remember and not verification.status.blocked:
        artifact = await synthesis.remember(org_id, run_id, policy, scope, scope_key)
    return SynthesisResult(
        run_id=run_id,
        plan=plan,
        sections=sections.sections,
        draft=draft,
        verification=verification,
        artifact=artifact,
    )
