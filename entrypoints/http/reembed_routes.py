"""Changing the embedding model over HTTP: start (or resume) a re-embed, and read its status.

Thin: ``Reembed`` decides who may (the install's owner), which names exist and
whether one already runs. The build runs in the service's background; the
status route is what ``tessera reembed`` polls to show progress.
"""

from typing import Annotated

import msgspec
from litestar import get, post
from litestar.di import NamedDependency
from litestar.params import JSONBody

from application.operations.reembed.records import ReembedStatus
from application.services import Services
from application.trust.access import Caller
from domain.policy import Surface

__all__ = ["REEMBED_ROUTES", "ReembedBody"]


class ReembedBody(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    embedder: Annotated[
        str,
        msgspec.Meta(
            min_length=1,
            max_length=100,
            description="The embedder to switch to, as TESSERA_EMBEDDER names it (e.g. onnx).",
        ),
    ]


@post(
    "/api/admin/reembed",
    status_code=202,
    summary="Re-embed every chunk with another model in the background, then switch to it",
)
async def start_reembed(
    data: JSONBody[ReembedBody],
    services: NamedDependency[Services],
    caller: NamedDependency[Caller],
) -> ReembedStatus:
    """The install's owner only. Search keeps serving the current model until every chunk
    has a vector of the new one; then the store and this process switch at once. Started
    again after an interruption, it resumes where the last run stopped."""
    return await services.reembed.start(data.embedder, caller.principal, Surface.API)


@get("/api/admin/reembed", summary="Progress of the re-embed: done/total, rate, ETA, state")
async def reembed_status(
    services: NamedDependency[Services], caller: NamedDependency[Caller]
) -> ReembedStatus:
    return await services.reembed.status(caller.principal)


REEMBED_ROUTES = [start_reembed, reembed_status]
