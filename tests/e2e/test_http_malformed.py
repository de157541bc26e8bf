"""Malformed bodies on every body route: a 4xx with a stable reason, never a 500.

Each case below answered ``500 internal_error`` (deep nesting, invalid UTF-8) or was
silently accepted (a string where a number belongs, a text/plain body) before the fix.
"""

import re
from typing import Any

import pytest

#: every route that takes a JSON body, with a body it accepts
BODY_ROUTES = [
    "/api/memory/remember",
    "/api/search",
    "/api/context/pack",
    "/api/memory/spaces/s1/access-preview",
    "/api/admin/orgs",
    "/api/admin/principals",
    "/api/admin/keys",
    "/api/admin/spaces",
    "/api/admin/spaces/s1/members",
    "/api/admin/spaces/s1/writes",
]

DEEP_ARRAY = b'{"query": ' + b"[" * 1000 + b"]" * 1000 + b"}"
DEEP_OBJECT = b'{"a": ' * 1000 + b"1" + b"}" * 1000

MALFORMED = [
    pytest.param(DEEP_ARRAY, 400, id="deep-array"),
    pytest.param(DEEP_OBJECT, 400, id="deep-object"),
    pytest.param(b'{"query": "ab\xffcd", "content": "ab\xffcd"}', 400, id="invalid-utf8"),
    pytest.param(b'{"query": "a\\ud800b", "content": "a\\ud800b"}', 400, id="lone-surrogate"),
    pytest.param(b"", 400, id="empty"),
    pytest.param(b"null", 400, id="null"),
]


def _post(client: Any, path: str, raw: bytes, ctype: str = "application/json") -> Any:
    return client.post(path, content=raw, headers={"content-type": ctype})


def _assert_error(response: Any, status: int, reasons: set[str]) -> dict[str, str]:
    assert response.status_code == status, (response.status_code, response.text[:300])
    error: dict[str, str] = response.json()["error"]
    assert set(error) == {"reason", "detail"}
    assert error["reason"] in reasons, error
    assert error["detail"] and "Traceback" not in error["detail"]
    return error


@pytest.mark.parametrize("path", BODY_ROUTES)
@pytest.mark.parametrize(("raw", "status"), MALFORMED)
def test_malformed_bodies_get_a_4xx_on_every_route(
    client: Any, path: str, raw: bytes, status: int
) -> None:
    reasons = {"malformed_json", "invalid_request", "unknown_field"}
    _assert_error(_post(client, path, raw), status, reasons)


@pytest.mark.parametrize(
    ("path", "raw", "reason"),
    [
        ("/api/search", b'{"query": "a\\ud800b"}', "malformed_json"),
        ("/api/memory/remember", b'{"content": "a\\udc00"}', "malformed_json"),
        ("/api/admin/orgs", b'{"name": "a\xff"}', "malformed_json"),
        ("/api/search", DEEP_ARRAY, "invalid_request"),
        (
            "/api/memory/remember",
            b'{"metadata": {"k": ' + b"[" * 2000 + b"]" * 2000 + b"}}",
            "invalid_request",
        ),
    ],
)
def test_each_malformed_kind_has_its_reason(
    client: Any, path: str, raw: bytes, reason: str
) -> None:
    _assert_error(_post(client, path, raw), 400, {reason})


@pytest.mark.parametrize("path", BODY_ROUTES)
@pytest.mark.parametrize(
    "ctype", ["text/plain", "application/x-www-form-urlencoded", "application/xml"]
)
def test_a_wrong_content_type_is_415(client: Any, path: str, ctype: str) -> None:
    response = _post(client, path, b'{"query": "x", "content": "x"}', ctype)
    _assert_error(response, 415, {"unsupported_media_type"})


def test_json_with_a_charset_is_still_json(client: Any) -> None:
    response = _post(client, "/api/search", b'{"query": "x"}', "application/json; charset=utf-8")
    assert response.status_code == 200, response.text


@pytest.mark.parametrize(
    ("path", "raw"),
    [
        ("/api/search", b'{"query": "x", "limit": "10"}'),
        ("/api/search", b'{"query": "x", "limit": 1.5}'),
        ("/api/search", b'{"query": "x", "limit": true}'),
        ("/api/context/pack", b'{"query": "x", "token_budget": "200"}'),
        ("/api/admin/principals", b'{"name": "x", "delegation_days": "3"}'),
        ("/api/admin/spaces/s1/writes", b'{"enabled": "true"}'),
        ("/api/memory/remember", b'{"content": 5}'),
    ],
)
def test_strings_where_numbers_belong_are_refused_like_floats(
    client: Any, path: str, raw: bytes
) -> None:
    error = _assert_error(_post(client, path, raw), 400, {"invalid_request"})
    assert "Expected" in error["detail"]


def test_an_empty_body_says_what_is_missing_in_words(client: Any) -> None:
    error = _assert_error(_post(client, "/api/search", b""), 400, {"malformed_json"})
    assert "'data'" not in error["detail"]
    assert "empty" in error["detail"]


def test_error_details_are_bounded(client: Any) -> None:
    huge = "z" * 100_000
    response = client.post("/api/memory/remember", json={"content": "x", "scope": huge})
    error = _assert_error(response, 400, {"invalid_request"})
    assert len(error["detail"]) <= 240
    response = client.post(
        "/api/memory/spaces/s1/access-preview", json={"principal": "p" * 1_000_000}
    )
    assert response.status_code in {403, 404, 422}
    assert len(response.json()["error"]["detail"]) <= 300


def _json_body_routes(client: Any) -> list[str]:
    """Every operation the document gives a JSON body, its path parameters filled in."""
    doc = client.get("/schema/openapi.json").json()
    return [
        re.sub(r"\{[^}]+\}", "x", path)
        for path, operations in doc["paths"].items()
        for method, operation in operations.items()
        if method == "post"
        and "application/json" in operation.get("requestBody", {}).get("content", {})
    ]


def test_every_json_route_refuses_a_body_of_another_or_no_content_type(client: Any) -> None:
    routes = _json_body_routes(client)
    assert len(routes) >= 30 and "/api/memory/remember" in routes
    body = b'{"query": "x", "content": "x"}'
    for path in routes:
        for headers in ({"content-type": "text/plain"}, {}):
            response = client.post(path, content=body, headers=headers)
            _assert_error(response, 415, {"unsupported_media_type"})
            assert "application/json" in response.json()["error"]["detail"], path


def test_no_body_and_no_content_type_says_the_body_is_empty(client: Any) -> None:
    error = _assert_error(client.post("/api/search"), 400, {"malformed_json"})
    assert "empty" in error["detail"]


def test_integer_query_parameters_are_written_as_integers(client: Any) -> None:
    for written in ("1.0", "1e2", "true", " 5"):
        for path, method in (("/api/audit", "GET"), ("/api/memory/export", "POST")):
            answer = client.request(method, path, params={"limit": written})
            assert answer.status_code == 400, (path, written, answer.text)
            assert answer.json()["error"]["reason"] == "invalid_request"
    assert client.get("/api/audit", params={"limit": "5"}).status_code == 200
