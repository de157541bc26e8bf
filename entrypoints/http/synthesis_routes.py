"""HTTP routes of synthesis: each stage alone, and all of them at once.

Thin handlers: a body becomes a use-case call under the request's policy
context; shapes are those of ``application.synthesis.commands``.
"""

from typing import Annotated

import msgspec
from litestar import post
from litestar.di import NamedDependency
from litestar.params import JSONBody

from application.services import Services
from application.synthesis.all_stages import synthesize as synthesize_all
from application.synthesis.commands import (
    DraftResult,
    PlanRequest,
    PlanResult,
    RememberedArtifact,
    SectionsResult,
    SynthesisResult,
    VerifyResult,
)
from application.synthesis.records import Freshness
from domain.policy import MemoryPolicyContext
from domain.scopes import MemoryScope
from domain.synthesis.outline import OutputType

__all__ = ["SYNTHESIS_ROUTES", "PlanBody", "RunBody", "SynthesizeBody"]

_AUDIENCE = msgspec.Meta(
    description="Who the document is for: principal:<id or name> or space:<scope>[/<key>]."
    " Only memory both the caller and the audience may read is used."
)


class PlanBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    query: str
    output_type: OutputType = OutputType.OVERVIEW
    audience: Annotated[str | None, _AUDIENCE] = None
    source_ids: list[str] = msgspec.field(default_factory=list)
    outline: Annotated[
        list[str] | None, msgspec.Meta(description="Section titles replacing the template.")
    ] = None
    freshness: Freshness = msgspec.field(default_factory=Freshness)

    def request(self, org_id: str) -> PlanRequest:
        return PlanRequest(
            org_id=org_id,
            query=self.query,
            output_type=self.output_type,
            audience=self.audience,
            source_ids=self.source_ids,
            outline=self.outline,
            freshness=self.freshness,
        )


class RunBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    run_id: str
    drafter: Annotated[str, msgspec.Meta(description="extractive (default) or llm")] = (
        "extractive"
    )
    scope: MemoryScope | None = None
    scope_key: str | None = None


class SynthesizeBody(PlanBody, frozen=True, kw_only=True, forbid_unknown_fields=True):
    drafter: str = "extractive"
    remember: Annotated[
        bool, msgspec.Meta(description="Remember the artifact when verification passes.")
    ] = False
    scope: MemoryScope | None = None
    scope_key: str | None = None


@post("/api/synthesize/plan", status_code=200, summary="Plan a cited document")
async def synthesize_plan(
    data: JSONBody[PlanBody],
    services: NamedDependency[Services],
    policy: NamedDependency[MemoryPolicyContext],
) -> PlanResult:
    """A deterministic outline from retrieval over the caller's readable memory (no LLM)."""
    return await services.synthesis.plan(data.request(policy.org_id), policy)


@post("/api/synthesize/sections", status_code=200, summary="Section packs of a run")
async def synthesize_sections(
    data: JSONBody[RunBody],
    services: NamedDependency[Services],
    policy: NamedDependency[MemoryPolicyContext],
) -> SectionsResult:
    """Per section: readable snippets, source ids, hidden and denied counts, freshness."""
    return await services.synthesis.sections(policy.org_id, data.run_id, policy)


@post("/api/synthesize/draft", status_code=200, summary="Draft a run's document")
async def synthesize_draft(
    data: JSONBody[RunBody],
    services: NamedDependency[Services],
    policy: NamedDependency[MemoryPolicyContext],
) -> DraftResult:
    """Markdown and JSON; every sentence cites source ids of its section pack."""
    return await services.synthesis.draft(policy.org_id, data.run_id, policy, data.drafter)


@post("/api/synthesize/verify", status_code=200, summary="Verify a run's draft")
async def synthesize_verify(
    data: JSONBody[RunBody],
    services: NamedDependency[Services],
    policy: NamedDependency[MemoryPolicyContext],
) -> VerifyResult:
    """Citation coverage, support of each sentence, no hidden text, freshness; a status."""
    return await services.synthesis.verify(policy.org_id, data.run_id, policy)


@post("/api/synthesize/remember", status_code=201, summary="Remember a verified artifact")
async def synthesize_remember(
    data: JSONBody[RunBody],
    services: NamedDependency[Services],
    policy: NamedDependency[MemoryPolicyContext],
) -> RememberedArtifact:
    """The artifact as memory with provenance, through the normal write policy."""
    return await services.synthesis.remember(
        policy.org_id, data.run_id, policy, data.scope, data.scope_key
    )


@post("/api/synthesize", status_code=200, summary="Every synthesis stage at once")
async def synthesize(
    data: JSONBody[SynthesizeBody],
    services: NamedDependency[Services],
    policy: NamedDependency[MemoryPolicyContext],
) -> SynthesisResult:
    return await synthesize_all(
        services.synthesis,
        data.request(policy.org_id),
        policy,
        drafter=data.drafter,
        remember=data.remember,
        scope=data.scope,
        scope_key=data.scope_key,
    )


SYNTHESIS_ROUTES = [
    synthesize_plan,
    synthesize_sections,
    synthesize_draft,
    synthesize_verify,
    synthesize_remember,
    synthesize,
]
