"""An integer query parameter is written as an integer: ``limit=1.0`` and ``limit=1e2`` are 400.

Why: Litestar converts query values leniently, so ``1.0`` and ``1e2`` became 1 and
100 while ``1.5`` was refused, and the document says ``integer``. Bodies are read
strictly for the same reason (``entrypoints.http.bodies``); this is the query's half.
"""

import re
from typing import Any

from litestar import Request
from litestar.enums import ParamType
from litestar.params import ParameterKwarg
from litestar.typing import FieldDefinition

from domain.errors import MalformedRequestError
from domain.reasons import ReasonCode

__all__ = ["check_query_integers"]

_INTEGER = re.compile(r"-?\d+")


def _is_int(field: FieldDefinition) -> bool:
    if field.is_optional:
        return any(inner.annotation is int for inner in field.inner_types)
    return field.annotation is int


def check_query_integers(request: Request[Any, Any, Any]) -> None:
    """Refuse an integer query parameter given as anything but an integer literal."""
    for name, field in request.route_handler.parsed_fn_signature.parameters.items():
        kwarg = field.kwarg_definition
        if not isinstance(kwarg, ParameterKwarg) or name in request.path_params:
            continue
        if kwarg.param_type is not ParamType.QUERY or not _is_int(field):
            continue
        key = kwarg.query or kwarg.name or name
        for value in request.query_params.getall(key, []):
            if not _INTEGER.fullmatch(value):
                raise MalformedRequestError(
                    ReasonCode.INVALID_REQUEST, f"{key}: Expected `int`, got `{value[:40]}`"
                )
