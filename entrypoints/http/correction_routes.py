"""Correction routes: preview a correction of a source, then apply it with the preview's token.

Thin: the body is the use case's own request type; every rule (who may,
which transitions, tokens) lives in ``application.corrections``.
"""

from litestar import post
from litestar.di import NamedDependency
from litestar.params import FromPath, JSONBody

from application.corrections.commands import CorrectionRequest
from application.corrections.results import CorrectionApplied, CorrectionPreview
from application.services import Services
from domain.policy import MemoryPolicyContext

__all__ = ["CORRECTION_ROUTES", "ApplyCorrectionBody", "as_request"]


class ApplyCorrectionBody(CorrectionRequest, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The previewed request again, with the ``preview_token`` its preview answered."""

    preview_token: str | None = None


def as_request(body: CorrectionRequest) -> CorrectionRequest:
    """The request alone (without a token), as the preview saw it."""
    fields = {name: getattr(body, name) for name in CorrectionRequest.__struct_fields__}
    return CorrectionRequest(**fields)


@post(
    "/api/memory/inspect/{source_id:str}/corrections/preview",
    status_code=200,
    summary="Preview a correction of a source",
)
async def preview_correction(
    source_id: FromPath[str],
    data: JSONBody[CorrectionRequest],
    services: NamedDependency[Services],
    policy: NamedDependency[MemoryPolicyContext],
) -> CorrectionPreview:
    """What the correction would change (ids, recall impact, resulting state, reversible) and a
    ``preview_token`` bound to the source's current version. Nothing is changed."""
    return await services.corrections.preview(policy, source_id, as_request(data))


@post(
    "/api/memory/inspect/{source_id:str}/corrections",
    status_code=200,
    summary="Apply a previewed correction",
)
async def apply_correction(
    source_id: FromPath[str],
    data: JSONBody[ApplyCorrectionBody],
    services: NamedDependency[Services],
    policy: NamedDependency[MemoryPolicyContext],
) -> CorrectionApplied:
    """Apply the previewed request; 409 ``source_changed`` if the source changed since the
    preview, 422 ``preview_required`` / ``preview_invalid`` without a matching token."""
    return await services.corrections.apply(policy, source_id, as_request(data), data.preview_token)


CORRECTION_ROUTES = [preview_correction, apply_correction]
