"""Bulk routes: delete many sources (preview, then apply with its token) and export.

Thin: selection, policy and tokens live in ``application.corrections``.
The export answers JSON lines, one source per line, streamed as they are read.
"""

from typing import Annotated

from litestar import post
from litestar.di import NamedDependency
from litestar.params import JSONBody, Parameter
from litestar.response import Stream

from application.corrections.bulk import BulkDeletePreview, BulkDeleteResult, BulkSelector
from application.corrections.export import ExportPreview
from application.services import Services
from domain.policy import MemoryPolicyContext

__all__ = ["BULK_ROUTES", "BulkDeleteBody", "selector_of"]


class BulkDeleteBody(BulkSelector, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """The previewed selection again, with the ``preview_token`` its preview answered."""

    preview_token: str | None = None


def selector_of(body: BulkSelector) -> BulkSelector:
    return BulkSelector(**{name: getattr(body, name) for name in BulkSelector.__struct_fields__})


@post("/api/memory/delete/preview", status_code=200, summary="Preview deleting many sources")
async def preview_bulk_delete(
    data: JSONBody[BulkSelector],
    services: NamedDependency[Services],
    policy: NamedDependency[MemoryPolicyContext],
) -> BulkDeletePreview:
    """Which sources a space, id list, import (source_uri prefix) or ``mine`` selects, how many
    are skipped (not yours to delete), and a ``preview_token``. Nothing is deleted."""
    return await services.bulk_delete.preview(policy, selector_of(data))


@post("/api/memory/delete", status_code=200, summary="Delete the previewed sources")
async def bulk_delete(
    data: JSONBody[BulkDeleteBody],
    services: NamedDependency[Services],
    policy: NamedDependency[MemoryPolicyContext],
) -> BulkDeleteResult:
    """Tombstones every previewed source; 409 ``source_changed`` if the selection changed."""
    return await services.bulk_delete.apply(policy, selector_of(data), data.preview_token)


@post("/api/memory/export/preview", status_code=200, summary="What an export would hold")
async def preview_export(
    services: NamedDependency[Services], policy: NamedDependency[MemoryPolicyContext]
) -> ExportPreview:
    return await services.exporter.preview(policy)


@post(
    "/api/memory/export",
    status_code=200,
    media_type="application/x-ndjson",
    summary="Export what you may read (JSON lines)",
)
async def export(
    services: NamedDependency[Services],
    policy: NamedDependency[MemoryPolicyContext],
    after: Annotated[str | None, Parameter(min_length=1)] = None,
    limit: Annotated[int | None, Parameter(ge=1)] = None,
) -> Stream:
    """One JSON object per line and source: metadata, lifecycle, correction history, and text
    where inspect would show it. Never vectors. In source-id order; ``after`` (a source id)
    and ``limit`` read it a page at a time."""
    lines = services.exporter.export(policy, after=after, limit=limit)
    return Stream(lines, media_type="application/x-ndjson")


BULK_ROUTES = [preview_bulk_delete, bulk_delete, preview_export, export]
