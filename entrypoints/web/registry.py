"""The workspace's pages, one module each, and the router that serves them.

Adding a page: write ``pages/<name>.py`` with its ``ROUTES`` (and a template),
list it in ``PAGES`` and, for the top navigation, in ``render.NAV``.
"""

from pathlib import Path

from litestar import Router
from litestar.static_files import create_static_files_router

from entrypoints.web.errors import WEB_EXCEPTION_HANDLERS, WORKSPACE
from entrypoints.web.pages import (
    access,
    access_create,
    access_revoke,
    home,
    imports,
    review,
    search,
    sign_in,
    source,
    status,
    synthesize,
)
from entrypoints.web.security import PageHeaders

__all__ = ["PAGES", "web_routers"]

PAGES = (
    sign_in,
    home,
    search,
    source,
    imports,
    review,
    synthesize,
    access,
    access_create,
    access_revoke,
    status,
)

_STATIC = Path(__file__).resolve().parent / "static"


def web_routers() -> list[Router]:
    """The pages under ``/memory`` and their own CSS and JS under ``/memory/static``."""
    handlers = [route for module in PAGES for route in module.ROUTES]
    pages = Router(
        path=WORKSPACE,
        route_handlers=handlers,
        exception_handlers=WEB_EXCEPTION_HANDLERS,
        middleware=[PageHeaders()],
        include_in_schema=False,
    )
    static = create_static_files_router(
        path=f"{WORKSPACE}/static",
        directories=[_STATIC],
        name="web_static",
        include_in_schema=False,
        middleware=[PageHeaders()],
        exception_handlers=WEB_EXCEPTION_HANDLERS,
    )
    return [pages, static]
