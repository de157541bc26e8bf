"""Which methods an address takes: ``OPTIONS`` and every ``405`` say the same, from the routes.

Why: Litestar 2 builds a path's ``OPTIONS`` answer when the path's first handler
is registered and never updates it, so a path served by two handlers (``GET``
and ``POST /api/admin/keys``) advertised only the first one's method
(litestar-org/litestar#4169, fixed only in Litestar 3). Both answers are
computed here from the app's routes instead, sorted, so they agree.
"""

from typing import Any

from litestar import Request, Response
from litestar.routes import HTTPRoute
from litestar.status_codes import HTTP_204_NO_CONTENT

from entrypoints.headers import allow_header

__all__ = ["answer_options"]


def answer_options(request: Request[Any, Any, Any]) -> Response[None] | None:
    """The answer to an ``OPTIONS`` request (None for any other method)."""
    if request.method != "OPTIONS":
        return None
    template = request.scope.get("path_template")
    methods = {
        method
        for route in request.app.routes
        if isinstance(route, HTTPRoute) and route.path_format == template
        for method in route.methods
    }
    return Response(None, status_code=HTTP_204_NO_CONTENT, headers={"allow": allow_header(methods)})
