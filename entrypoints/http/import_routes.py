"""The import routes: start an import (a path in the organisation's import area, or an
upload), watch it, pause, resume or cancel it.

Thin as every route: the rules (the area, who may import by path, uploads'
owners, the policy, audit, the background run) live in ``ImportJobs``. The
start route reads its body itself because it takes JSON or a multipart upload; it needs a
Content-Length so that an upload over the limit is refused (413, the limit
stated) before a byte of it is read.
"""

from typing import Any

import msgspec
from litestar import Request, get, post
from litestar.datastructures import State, UploadFile
from litestar.di import NamedDependency
from litestar.exceptions import ValidationException
from litestar.params import FromPath

from application.imports.import_jobs import ImportJobs
from application.imports.views import ImportView
from application.services import Services
from application.trust.access import Caller
from domain.errors import InvalidInputError, MalformedRequestError, NotFoundError
from domain.policy import MemoryPolicyContext
from domain.reasons import ReasonCode
from domain.scopes import MemoryScope
from entrypoints.http.bodies import is_json_media_type
from entrypoints.http.import_schemas import ImportStartBody, StartImportOperation
from entrypoints.http.uploads import keep_upload, too_large

__all__ = ["IMPORT_ROUTES"]

_BASE = "/api/sources/imports"
#: a JSON start names a path and a target: a few hundred bytes
_MAX_JSON_BYTES = 64_000


def _jobs(services: Services) -> ImportJobs:
    if services.imports is None:
        raise NotFoundError(ReasonCode.NOT_FOUND, "imports are not configured on this service")
    return services.imports


def _json_or_upload(media: str, length: str | None) -> None:
    """A start is JSON or a multipart upload; a body of any other type is 415, not read."""
    if media.startswith("multipart/form-data") or is_json_media_type(media):
        return
    if not media and length in (None, "0"):
        return  # no body at all: the JSON decoder says it is empty
    raise InvalidInputError(
        ReasonCode.UNSUPPORTED_MEDIA_TYPE,
        "starting an import takes JSON (content-type application/json) or a multipart upload",
    )


def _length(request: Request[Any, Any, State], limit: int, too_long: InvalidInputError) -> None:
    raw = request.headers.get("content-length")
    if raw is None or not raw.isdigit():
        raise InvalidInputError(
            ReasonCode.INVALID_REQUEST, "starting an import needs a Content-Length header"
        )
    if int(raw) > limit:
        raise too_long


def _json_too_large() -> InvalidInputError:
    return InvalidInputError(
        ReasonCode.CONTENT_TOO_LARGE,
        f"a JSON import start may be at most {_MAX_JSON_BYTES} bytes: it names a path, an "
        "adapter and a target; send an archive itself as a multipart/form-data upload",
    )


def _decode(raw: bytes) -> ImportStartBody:
    try:
        return msgspec.json.decode(raw, type=ImportStartBody)
    except msgspec.ValidationError as exc:
        raise ValidationException(extra=[{"message": str(exc), "key": ""}]) from None
    except UnicodeDecodeError:
        raise MalformedRequestError(
            ReasonCode.MALFORMED_JSON, "the request body is not valid UTF-8"
        ) from None
    except msgspec.DecodeError:
        raise InvalidInputError(
            ReasonCode.MALFORMED_JSON, "the request body is not valid JSON"
        ) from None


async def _from_upload(
    request: Request[Any, Any, State],
    jobs: ImportJobs,
    policy: MemoryPolicyContext,
    caller: Caller,
    upload_id: str,
) -> ImportView:
    form = await request.form()
    upload = form.get("file")
    if not isinstance(upload, UploadFile):
        raise InvalidInputError(
            ReasonCode.INVALID_REQUEST, "a multipart start needs the archive in a 'file' part"
        )
    # an empty scope field is one not filled in; an empty adapter is named, and refused by name
    fields = {k: form.get(k) for k in ("scope", "scope_key") if form.get(k)}
    if isinstance(form.get("adapter"), str):
        fields["adapter"] = form.get("adapter")
    try:
        target = msgspec.convert({"path": "upload", **fields}, ImportStartBody)
    except msgspec.ValidationError as exc:
        raise ValidationException(extra=[{"message": str(exc), "key": ""}]) from None
    path = await keep_upload(jobs, policy, upload_id, upload)
    return await jobs.start_upload(
        policy,
        key_id=caller.key_id,
        adapter=target.adapter,
        archive=path,
        scope=MemoryScope(target.scope),
        scope_key=target.scope_key,
    )


@post(
    _BASE,
    status_code=202,
    summary="Start an import",
    request_max_body_size=None,
    operation_class=StartImportOperation,
)
async def start_import(
    request: Request[Any, Any, State],
    services: NamedDependency[Services],
    policy: NamedDependency[MemoryPolicyContext],
    caller: NamedDependency[Caller],
) -> ImportView:
    """Import an archive: JSON naming ``path`` (in the organisation's import area; the
    organisation's owner or a principal the operator approved) and ``adapter``, or a
    multipart upload with the archive in ``file`` (zip and tar are unpacked) and ``adapter``.

    It runs in the background; poll ``GET /api/sources/imports/{id}``.
    """
    media = request.headers.get("content-type", "")
    _json_or_upload(media, request.headers.get("content-length"))
    jobs = _jobs(services)
    if media.startswith("multipart/form-data"):
        _length(request, jobs.max_upload_bytes, too_large(jobs.max_upload_bytes))
        return await _from_upload(request, jobs, policy, caller, services.audit.new_id())
    _length(request, _MAX_JSON_BYTES, _json_too_large())
    body = _decode(await request.body())
    return await jobs.start(
        policy,
        key_id=caller.key_id,
        adapter=body.adapter,
        path=body.path,
        scope=MemoryScope(body.scope),
        scope_key=body.scope_key,
    )


@get(_BASE, summary="The caller's imports, newest first")
async def list_imports(
    services: NamedDependency[Services], policy: NamedDependency[MemoryPolicyContext]
) -> list[ImportView]:
    return await _jobs(services).list_jobs(policy)


@get(f"{_BASE}/{{import_id:str}}", summary="One import: status, counters, checkpoint, skips")
async def get_import(
    import_id: FromPath[str],
    services: NamedDependency[Services],
    policy: NamedDependency[MemoryPolicyContext],
) -> ImportView:
    return await _jobs(services).get(policy, import_id)


@post(f"{_BASE}/{{import_id:str}}/resume", status_code=202, summary="Resume an import")
async def resume_import(
    import_id: FromPath[str],
    services: NamedDependency[Services],
    policy: NamedDependency[MemoryPolicyContext],
) -> ImportView:
    """Continue from the checkpoint; records already written count as duplicates."""
    return await _jobs(services).resume(policy, import_id)


@post(f"{_BASE}/{{import_id:str}}/pause", status_code=200, summary="Pause an import")
async def pause_import(
    import_id: FromPath[str],
    services: NamedDependency[Services],
    policy: NamedDependency[MemoryPolicyContext],
) -> ImportView:
    """Stop after the batch in hand (answers once it stopped); resume continues it."""
    return await _jobs(services).pause(policy, import_id)


@post(f"{_BASE}/{{import_id:str}}/cancel", status_code=200, summary="Cancel an import")
async def cancel_import(
    import_id: FromPath[str],
    services: NamedDependency[Services],
    policy: NamedDependency[MemoryPolicyContext],
) -> ImportView:
    """Stop for good; what it already wrote stays remembered."""
    return await _jobs(services).cancel(policy, import_id)


IMPORT_ROUTES = [
    start_import,
    list_imports,
    get_import,
    resume_import,
    pause_import,
    cancel_import,
]
