"""Reading a posted form: the same-origin and CSRF checks first, then the fields.

Why both: the token proves the form came from a page this session was
shown; the Origin check also covers the sign-in form, which has no session
yet (a page elsewhere must not sign a visitor in as someone else).
"""

from typing import Any

from litestar import Request
from litestar.datastructures import State

from entrypoints.web.security import CsrfRefusedError, check_csrf
from entrypoints.web.viewer import Viewer

__all__ = ["Form", "client_of", "posted", "same_origin"]

#: a form field longer than this is cut (the use cases check their own limits after)
_MAX_FIELD = 400_000


class Form:
    """Posted fields, each a string ('' when absent); a field posted more than once reads
    as its first value, or as all of them through ``all``."""

    def __init__(self, fields: dict[str, list[str]]) -> None:
        self._fields = fields

    def get(self, name: str) -> str:
        values = self._fields.get(name)
        return values[0] if values else ""

    def all(self, name: str) -> list[str]:
        return list(self._fields.get(name, ()))

    def optional(self, name: str) -> str | None:
        value = self.get(name).strip()
        return value or None


def same_origin(request: Request[Any, Any, State]) -> None:
    origin = request.headers.get("origin")
    if origin is None or origin == "null":
        return  # older browsers send none on same-origin posts; the token still decides
    expected = f"{request.url.scheme}://{request.headers.get('host', '')}"
    if origin != expected:
        raise CsrfRefusedError


async def _fields(request: Request[Any, Any, State]) -> dict[str, list[str]]:
    data = await request.form()
    fields: dict[str, list[str]] = {}
    for name, value in data.multi_items():
        if isinstance(value, str):
            fields.setdefault(name, []).append(value[:_MAX_FIELD])
    return fields


async def posted(request: Request[Any, Any, State], viewer: Viewer | None) -> Form:
    """The form's fields once it passed the origin check and (signed in) the CSRF token."""
    same_origin(request)
    form = Form(await _fields(request))
    if viewer is not None:
        check_csrf(viewer.session, form.get("csrf") or None)
    return form


def client_of(request: Request[Any, Any, State]) -> str:
    return request.client.host if request.client is not None else "unknown"
