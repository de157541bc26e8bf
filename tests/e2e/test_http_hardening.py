"""Smaller defects found by trying the API as a new user."""

import re
from typing import Any

import pytest


@pytest.mark.parametrize("content", ["\u200b", "\u200b \u2060\ufeff", "\u202e\u202c", "\u3164"])
def test_invisible_only_content_is_empty(client: Any, content: str) -> None:
    response = client.post("/api/memory/remember", json={"content": content})
    assert response.status_code == 422, response.text
    assert response.json()["error"]["reason"] == "empty_content"
    turns = [{"role": "user", "content": content}]
    response = client.post("/api/memory/remember", json={"turns": turns})
    assert response.json()["error"]["reason"] == "invalid_turn"
    response = client.post("/api/search", json={"query": content})
    assert response.json()["error"]["reason"] == "empty_query"
    response = client.post("/api/context/pack", json={"query": content})
    assert response.json()["error"]["reason"] == "empty_query"


@pytest.mark.parametrize("name", ["ana\x00", "ana\u202egnp.exe", "bo\nb", "\u2067x", "\u200b"])
def test_names_with_control_or_bidi_characters_are_refused(client: Any, name: str) -> None:
    for path, body in (
        ("/api/admin/principals", {"name": name}),
        ("/api/admin/orgs", {"name": name}),
        ("/api/admin/spaces", {"scope": "project", "scope_key": "k", "name": name}),
    ):
        response = client.post(path, json=body)
        assert response.status_code == 422, (path, response.text)
        error = response.json()["error"]
        assert error["reason"] == "invalid_request"
        assert name not in error["detail"]


def test_a_huge_name_gets_a_short_error(client: Any) -> None:
    response = client.post("/api/admin/principals", json={"name": "n" * 1_000_000})
    assert response.status_code == 422
    assert len(response.text) < 400


def test_options_and_405_name_exactly_the_methods_each_path_takes(client: Any) -> None:
    doc = client.get("/schema/openapi.json").json()
    for path, operations in doc["paths"].items():
        address = re.sub(r"\{[^}]+\}", "x", path)
        methods = ", ".join(sorted({*(m.upper() for m in operations), "OPTIONS"}))
        options = client.options(address)
        assert (options.status_code, options.headers.get("allow")) == (204, methods), path
        refused = client.request("TRACE", address)
        assert (refused.status_code, refused.headers.get("allow")) == (405, methods), path
        assert refused.json()["error"]["reason"] == "invalid_request"
