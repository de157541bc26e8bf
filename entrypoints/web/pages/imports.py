"""Imports (``/memory/imports``): upload an archive, watch it, pause, resume or cancel it.

Views over ``ImportJobs`` with the viewer's context, as the import routes of
the API: ``start_upload`` (the archive saved in the viewer's uploads by the same
``save_upload``, size limit stated on the page and enforced before a byte is
read), ``list_jobs``, ``get``, ``pause``, ``resume``, ``cancel``. A running
import's page refreshes itself every few seconds (a meta refresh: no script).

The format is the one chosen, else the one the file's name says, else the one
its content says (``sniff_format``); a file none of them tells is refused with
a 422 and left nowhere. Progress is a bar over the archive's estimated item
count (``estimate_items``, the CLI's progress total), said in words.
"""

import asyncio
from functools import lru_cache
from pathlib import Path
from typing import Any

from litestar import Request, Response, get, post
from litestar.datastructures import State, UploadFile
from litestar.params import FromPath
from litestar.response import Redirect, Template

from adapters.sources.estimate import estimate_items
from adapters.sources.sniff import format_by_name, sniff_format
from application.imports.import_jobs import ImportJobs
from application.imports.jobs import ImportStatus
from application.imports.views import ImportView
from application.services import Services
from domain.errors import InvalidInputError, NotFoundError
from domain.reasons import ReasonCode
from domain.scopes import MemoryScope
from entrypoints.http.uploads import keep_upload, too_large
from entrypoints.web.forms import posted
from entrypoints.web.render import page
from entrypoints.web.viewer import Viewer, signed_in
from entrypoints.web.words import parse_space, size_words, space_value

__all__ = ["ROUTES"]

_ACTIONS = ("pause", "resume", "cancel")
_RUNNING = {ImportStatus.PENDING, ImportStatus.RUNNING}
#: the format menu's default: the name, then the content, tells the format
DETECT = "detect"


def _jobs(services: Services) -> ImportJobs:
    if services.imports is None:
        raise NotFoundError(ReasonCode.NOT_FOUND, "imports are not configured on this service")
    return services.imports


def _rate(view: ImportView) -> float | None:
    """Records read per second since the import started."""
    seconds = (view.updated_at - view.created_at).total_seconds()
    return round(view.counters.read / seconds, 1) if seconds > 0 else None


#: what a person may still do with an import in each state (a finished one: nothing)
_OFFERED = {
    ImportStatus.PENDING: (("pause", "Pause"), ("cancel", "Cancel")),
    ImportStatus.RUNNING: (("pause", "Pause"), ("cancel", "Cancel")),
    ImportStatus.PAUSED: (("resume", "Resume"), ("cancel", "Cancel")),
    ImportStatus.FAILED: (("resume", "Try again"), ("cancel", "Cancel")),
}


@lru_cache(maxsize=64)
def _estimated(adapter: str, path: str, size: int) -> int | None:
    """An archive's item count, counted once per file (a running page asks every few seconds)."""
    return estimate_items(adapter, Path(path))


def _count(adapter: str, path: Path) -> int | None:
    if not path.exists():
        return None  # the upload is gone
    size = path.stat().st_size if path.is_file() else -1
    return _estimated(adapter, str(path), size)


async def _total(view: ImportView) -> int | None:
    """About how many records the archive holds; None once its upload is gone or unknown."""
    if view.status not in _RUNNING and view.status != ImportStatus.PAUSED:
        return None  # finished: the counters are the whole story
    try:
        return await asyncio.to_thread(_count, view.adapter, Path(view.path))
    except OSError:
        return None


def progress(view: ImportView, total: int | None) -> dict[str, Any]:
    """The bar's value and maximum, its percentage and a sentence about it."""
    read = view.counters.read
    if view.status == ImportStatus.COMPLETED:
        words = f"Done: read {_records(read)}."
        return {"value": 1, "max": 1, "percent": 100, "words": words}
    if not total or total < read:
        words = f"Read {_records(read)} so far; the archive's size is not known."
        return {"value": None, "max": None, "percent": None, "words": words}
    percent = round(100 * read / total)
    words = f"Read {read} of about {_records(total)} ({percent}%)."
    return {"value": read, "max": total, "percent": percent, "words": words}


def _records(n: int) -> str:
    return f"{n} record" if n == 1 else f"{n} records"


def _shown(view: ImportView, total: int | None = None) -> dict[str, Any]:
    return {
        "view": view,
        "archive": Path(view.path).name,  # the file, not where the server keeps it
        "rate": _rate(view),
        "running": view.status in _RUNNING,
        "offered": _OFFERED.get(ImportStatus(view.status), ()),
        "progress": progress(view, total),
    }


@get("/imports", name="web_imports")
async def imports(request: Request[Any, Any, State]) -> Template:
    viewer = await signed_in(request)
    jobs = _jobs(viewer.services)
    listed = await jobs.list_jobs(viewer.ctx)
    spaces = await viewer.services.inspector.visible_spaces(await viewer.context())
    return page(
        "imports.html",
        viewer,
        title="Imports",
        imports=[_shown(v) for v in listed],
        adapters=jobs.adapters,
        detect=DETECT,
        limit=size_words(jobs.max_upload_bytes),
        spaces=[(space_value(s.scope, s.scope_key), s) for s in spaces],
    )


def _discard(jobs: ImportJobs, viewer: Viewer, path: Path) -> None:
    """Remove an upload that will not be imported: its whole folder, unpacked or not."""
    actor = viewer.ctx.actor
    found = actor and jobs.area.upload_of(viewer.ctx.org_id, actor.principal_id, path)
    if found:
        jobs.discard_upload(found[0])


async def _start(request: Request[Any, Any, State], viewer: Viewer, jobs: ImportJobs) -> str:
    raw = request.headers.get("content-length")
    if raw is None or not raw.isdigit():
        raise InvalidInputError(ReasonCode.INVALID_REQUEST, "an upload needs a Content-Length")
    if int(raw) > jobs.max_upload_bytes:
        raise too_large(jobs.max_upload_bytes)
    form = await posted(request, viewer)  # the CSRF token before anything is kept
    upload = (await request.form()).get("file")
    if not isinstance(upload, UploadFile) or not upload.filename:
        raise InvalidInputError(ReasonCode.INVALID_REQUEST, "choose an archive to upload")
    scope, key = parse_space(form.get("space"))
    chosen = form.optional("adapter")
    adapter = None if chosen in (None, DETECT) else chosen
    upload_id = viewer.services.audit.new_id()
    path = await keep_upload(jobs, viewer.ctx, upload_id, upload)
    adapter = adapter or format_by_name(upload.filename, jobs.adapters)
    if adapter is None:
        adapter = await asyncio.to_thread(sniff_format, path)
    if adapter is None or adapter not in jobs.adapters:
        _discard(jobs, viewer, path)
        raise InvalidInputError(
            ReasonCode.UNKNOWN_ADAPTER,
            "neither the file's name nor its content says its format: choose one",
        )
    started = await jobs.start_upload(
        viewer.ctx,
        key_id=viewer.caller.key_id,
        adapter=adapter,
        archive=path,
        scope=scope or MemoryScope.PRIVATE,
        scope_key=key,
    )
    return started.id


@post("/imports", status_code=303, request_max_body_size=None)
async def start(request: Request[Any, Any, State]) -> Response[Any]:
    viewer = await signed_in(request)
    import_id = await _start(request, viewer, _jobs(viewer.services))
    return Redirect(f"/memory/imports/{import_id}", status_code=303)


@get("/imports/{import_id:str}", name="web_import")
async def one(request: Request[Any, Any, State], import_id: FromPath[str]) -> Template:
    viewer = await signed_in(request)
    view = await _jobs(viewer.services).get(viewer.ctx, import_id)
    return page("import.html", viewer, title="Import", **_shown(view, await _total(view)))


@post("/imports/{import_id:str}/{action:str}", status_code=303)
async def act(
    request: Request[Any, Any, State], import_id: FromPath[str], action: FromPath[str]
) -> Response[Any]:
    viewer = await signed_in(request)
    await posted(request, viewer)
    if action not in _ACTIONS:
        raise NotFoundError(ReasonCode.NOT_FOUND, "no such import action")
    jobs = _jobs(viewer.services)
    await getattr(jobs, action)(viewer.ctx, import_id)
    return Redirect(f"/memory/imports/{import_id}", status_code=303)


ROUTES = [imports, start, one, act]
