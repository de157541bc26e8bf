"""The provenance a remembered artifact carries, as source metadata.

Metadata values are flat (str, number, bool, list of str), so per-section
source ids are one ``"<title>: id id"`` string per section. Nothing here
holds memory text: ids, counts, a hash, the verdict, who and when.
"""

from application.synthesis.records import Draft, SynthesisRun, Verification
from domain.hashing import content_hash
from domain.models import MetadataValue
from domain.policy import MemoryPolicyContext

__all__ = ["provenance"]


def provenance(
    run: SynthesisRun, draft: Draft, verification: Verification, policy: MemoryPolicyContext
) -> tuple[dict[str, MetadataValue], list[str]]:
    """The artifact's metadata, and the source ids it cites (in first-cited order)."""
    sections: list[str] = []
    cited: dict[str, None] = {}
    for section in draft.sections:
        ids = list(dict.fromkeys(c for s in section.sentences for c in s.citations))
        cited.update(dict.fromkeys(ids))
        sections.append(f"{section.title}: {' '.join(ids)}".strip())
    unresolved = [f"{c.section}: {c.reason}" for c in verification.unsupported_claims]
    metadata: dict[str, MetadataValue] = {
        "synthesis_run_id": run.run_id,
        "synthesis_output_type": str(run.output_type),
        "synthesis_audience": run.audience or f"principal:{run.actor_id}",
        "synthesis_actor": run.actor_id,
        "synthesis_drafter": draft.drafter,
        "synthesis_text_hash": content_hash(draft.markdown),
        "synthesis_section_sources": sections,
        "synthesis_cited_sources": list(cited),
        "synthesis_unresolved": [*unresolved, *(f"gap: {g}" for g in verification.gaps)],
        "synthesis_status": str(verification.status),
        "synthesis_citation_coverage": verification.citation_coverage,
        "synthesis_supported_share": verification.supported_share,
        "synthesis_hidden_count": verification.hidden_counts.hidden,
        "synthesis_fresh_as_of": verification.checked_at.isoformat(),
        "synthesis_policy_audit_id": policy.audit_id,
        "synthesis_surface": str(policy.surface),
    }
    return metadata, list(cited)
