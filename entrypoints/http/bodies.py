"""Read every JSON body strictly, before Litestar's lenient conversion sees it.

Litestar converts bodies with ``strict=False`` (``"limit": "10"`` becomes 10) and lets
msgspec's ``RecursionError`` and ``UnicodeDecodeError`` escape as 500s. This hook runs
before the handler's parameters are parsed and decodes the raw bytes into the route's
declared body type with ``strict=True``, so every malformed body is a 4xx with a stable
reason from the one error table. The key is checked first,
as before: a request without one is 401 whatever its body.
"""

from typing import Any

import msgspec
from litestar import Request

from domain.errors import InvalidInputError, MalformedRequestError, bounded_detail
from domain.reasons import ReasonCode
from entrypoints.http.auth import authenticate

__all__ = ["check_json_body", "is_json_media_type"]

#: a validation message quotes at most this much of what was sent
_MAX_ECHO = 200


def is_json_media_type(content_type: str) -> bool:
    """``application/json`` (any parameters) or a ``+json`` suffix type."""
    media = content_type.split(";", 1)[0].strip().lower()
    return media == "application/json" or (
        media.startswith("application/") and media.endswith("+json")
    )


def _not_json() -> InvalidInputError:
    return InvalidInputError(
        ReasonCode.UNSUPPORTED_MEDIA_TYPE,
        "this route takes a JSON body: send content-type application/json",
    )


def _malformed(detail: str) -> MalformedRequestError:
    return MalformedRequestError(ReasonCode.MALFORMED_JSON, detail)


async def check_json_body(request: Request[Any, Any, Any]) -> None:
    """Refuse a body the route's type cannot be strictly decoded from; else let it through."""
    parameters = request.route_handler.parsed_fn_signature.parameters
    field = parameters.get("data")
    if field is None:
        return
    if "caller" in parameters or "policy" in parameters:
        await authenticate(request)  # a caller without a key learns nothing about bodies
    content_type = request.headers.get("content-type")
    if content_type and not is_json_media_type(content_type):
        raise _not_json()
    raw = await request.body()
    if not raw.strip():
        raise _malformed("the request body is empty: this route takes a JSON object")
    if not content_type:
        raise _not_json()  # a body that does not say what it is is not read as JSON
    try:
        msgspec.json.decode(raw, type=field.annotation, strict=True)
    except UnicodeDecodeError:
        raise _malformed("the request body is not valid UTF-8") from None
    except RecursionError:
        raise _malformed("the request body is nested too deeply") from None
    except msgspec.ValidationError as exc:
        message = bounded_detail(str(exc), _MAX_ECHO)  # msgspec may quote the bad value
        unknown = "unknown field" in message
        reason = ReasonCode.UNKNOWN_FIELD if unknown else ReasonCode.INVALID_REQUEST
        raise MalformedRequestError(reason, message) from None
    except msgspec.DecodeError:
        raise _malformed("the request body is not valid JSON") from None
