"""The HTTP contract: shapes, status codes and stable reasons, over the reference adapters."""

from typing import Any

import pytest
from litestar.testing import TestClient

Client = TestClient  # type: ignore[type-arg]


def _remember(client: Any, content: str, **kw: object) -> dict[str, Any]:
    response = client.post("/api/memory/remember", json={"content": content, **kw})
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def test_remember_then_search_then_pack(client: Any) -> None:
    first = _remember(client, "The quarterly budget review moved to Thursday at 3pm.")
    assert set(first) == {"source_id", "chunk_ids", "cached_embeddings", "embedding"}
    assert len(first["chunk_ids"]) == 1
    _remember(
        client,
        "Remember to water the tomatoes every morning.",
        scope="private",
        scope_key=None,
        source_type="note",
        metadata={"tag": "garden"},
        occurred_at=None,
    )

    response = client.post("/api/search", json={"query": "when is the budget review", "limit": 5})
    assert response.status_code == 200
    results = response.json()["results"]
    assert results[0]["source_id"] == first["source_id"]
    assert results[0]["chunk_id"] == first["chunk_ids"][0]
    assert "budget review" in results[0]["text"]
    assert {"lexical_rank", "vector_rank"} <= set(results[0]["signals"])
    assert results[0]["score"] > 0

    response = client.post(
        "/api/context/pack", json={"query": "budget review", "token_budget": 200}
    )
    assert response.status_code == 200
    pack = response.json()
    assert 0 < pack["token_count"] <= 200
    assert pack["items"][0]["source_id"] == first["source_id"]
    assert pack["items"][0]["reason"]


def test_a_question_nothing_is_about_gets_an_empty_list_the_count_and_a_reason(
    client: Any,
) -> None:
    for text in (
        "The quarterly budget review moved to Thursday at 3pm.",
        "Remember to water the tomatoes every morning.",
        "The spare house key is with Mrs. Okafor at number 12.",
    ):
        _remember(client, text)
    nonsense = client.post("/api/search", json={"query": "xylophone quantum banana"})
    assert nonsense.status_code == 200
    body = nonsense.json()
    assert body["results"] == [] and body["derived"] == []
    assert body["below_floor"] == 3 and body["reason"] == "nothing_relevant"
    pack = client.post("/api/context/pack", json={"query": "xylophone quantum banana"}).json()
    assert pack["reason"] == "nothing_relevant" and pack["below_floor"] == 0
    assert pack["items"] and all("weak match" in item["reason"] for item in pack["items"])
    # a real question about the same memory keeps its hits, with no reason
    real = client.post("/api/search", json={"query": "who has the spare key"}).json()
    assert real["results"][0]["text"].startswith("The spare house key")
    assert real["below_floor"] == 0 and real["reason"] is None


def test_only_content_is_required_and_defaults_apply(client: Any) -> None:
    body = _remember(client, "just a note")
    response = client.post("/api/search", json={"query": "note"})
    assert response.json()["results"][0]["source_id"] == body["source_id"]
    assert response.json()["results"][0]["scope"] == "private"


def test_long_content_is_split_into_chunks_that_keep_the_source(client: Any) -> None:
    content = " ".join(f"Fact {i}: the server in rack {i} runs Debian." for i in range(300))
    body = _remember(client, content)
    assert len(body["chunk_ids"]) > 5
    hits = client.post("/api/search", json={"query": "rack 250 Debian", "limit": 3}).json()
    assert all(h["source_id"] == body["source_id"] for h in hits["results"])


def test_health_reports_engine_and_embedder(client: Any) -> None:
    response = client.get("/api/health")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["embedding_dimension"] == 64
    assert body["store_url_kind"] and body["engine"] and body["embedder_model"]


def test_openapi_schema_is_served(client: Any) -> None:
    response = client.get("/schema/openapi.json")
    assert response.status_code == 200
    paths = response.json()["paths"]
    assert {"/api/memory/remember", "/api/search", "/api/context/pack", "/api/health"} <= set(paths)


@pytest.mark.parametrize(
    ("path", "raw", "status", "reason"),
    [
        ("/api/memory/remember", b"{not json", 400, "malformed_json"),
        ("/api/memory/remember", b"{}", 422, "empty_content"),
        ("/api/memory/remember", b'{"turns": []}', 422, "invalid_turn"),
        (
            "/api/memory/remember",
            b'{"turns": [{"role": "bot", "content": "hi"}]}',
            422,
            "invalid_turn",
        ),
        (
            "/api/memory/remember",
            b'{"turns": [{"role": "user", "content": " "}]}',
            422,
            "invalid_turn",
        ),
        (
            "/api/memory/remember",
            b'{"content": "x", "turns": [{"role": "user", "content": "y"}]}',
            422,
            "invalid_request",
        ),
        (
            "/api/memory/remember",
            b'{"turns": [{"role": "user", "content": "y", "mood": 1}]}',
            400,
            "unknown_field",
        ),
        (
            "/api/memory/remember",
            b'{"turns": [{"role": "user", "content": "y", "speaker": " "}]}',
            422,
            "invalid_turn",
        ),
        ("/api/memory/remember", b'{"content": ""}', 422, "empty_content"),
        ("/api/memory/remember", b'{"content": "   "}', 422, "empty_content"),
        ("/api/memory/remember", b'{"content": 5}', 400, "invalid_request"),
        ("/api/memory/remember", b'{"content": "x", "colour": "red"}', 400, "unknown_field"),
        ("/api/memory/remember", b'{"content": "x", "scope": "galaxy"}', 400, "invalid_request"),
        ("/api/memory/remember", b'{"content": "x", "scope": "project"}', 422, "missing_scope_key"),
        (
            "/api/memory/remember",
            b'{"content": "x", "occurred_at": "yesterday"}',
            400,
            "invalid_request",
        ),
        ("/api/memory/remember", b"[]", 400, "invalid_request"),
        ("/api/search", b'{"query": "x", "limit": 0}', 422, "limit_out_of_range"),
        ("/api/search", b'{"query": "x", "limit": 1000}', 422, "limit_out_of_range"),
        ("/api/search", b'{"query": "x", "limit": "ten"}', 400, "invalid_request"),
        ("/api/search", b'{"query": ""}', 422, "empty_query"),
        ("/api/search", b'{"q": "x"}', 400, "unknown_field"),
        ("/api/context/pack", b'{"query": "x", "token_budget": 0}', 422, "budget_out_of_range"),
        ("/api/context/pack", b'{"query": "x", "token_budget": -5}', 422, "budget_out_of_range"),
    ],
)
def test_bad_input_gets_a_4xx_with_a_stable_reason(
    client: Any, path: str, raw: bytes, status: int, reason: str
) -> None:
    response = client.post(path, content=raw, headers={"content-type": "application/json"})
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert error["reason"] == reason
    assert isinstance(error["detail"], str) and error["detail"]
    assert "Traceback" not in response.text


def test_content_over_the_documented_maximum_is_413(client: Any) -> None:
    response = client.post("/api/memory/remember", json={"content": "a" * 200_001})
    assert response.status_code == 413
    assert response.json()["error"]["reason"] == "content_too_large"
    huge = b'{"content": "' + b"a" * 2_000_000 + b'"}'
    response = client.post(
        "/api/memory/remember", content=huge, headers={"content-type": "application/json"}
    )
    assert response.status_code == 413
    assert response.json()["error"]["reason"] == "content_too_large"


def test_unknown_route_and_wrong_method(client: Any) -> None:
    assert client.get("/api/nope").json()["error"]["reason"] == "not_found"
    response = client.get("/api/search")
    assert response.status_code == 405
    assert response.json()["error"]["reason"] == "invalid_request"


def test_errors_never_echo_the_content(client: Any) -> None:
    secret = "my bank pin is 4921"
    response = client.post("/api/memory/remember", json={"content": secret, "scope": "team"})
    assert response.status_code == 422
    assert "4921" not in response.text


def test_a_conversation_is_one_source_whose_turns_keep_role_and_order(client: Any) -> None:
    response = client.post(
        "/api/memory/remember",
        json={
            "source_type": "conversation",
            "occurred_at": "2026-02-03T10:00:00+01:00",
            "turns": [
                {"role": "user", "content": "My sister's cello recital is on the ninth."},
                {"role": "assistant", "content": "Noted: the cello recital on the ninth."},
            ],
        },
    )
    assert response.status_code == 201, response.text
    body = response.json()
    assert len(body["chunk_ids"]) == 2
    pack = client.post("/api/context/pack", json={"query": "when is the cello recital"}).json()
    assert [e["source_id"] for e in pack["episodes"]] == [body["source_id"]]
    assert [(i["role"], i["turn_index"]) for i in pack["items"]] == [("user", 0), ("assistant", 1)]


def test_turns_keep_their_speakers_on_hits_and_pack_items(client: Any) -> None:
    response = client.post(
        "/api/memory/remember",
        json={
            "source_type": "conversation",
            "turns": [
                {"role": "user", "speaker": "Sam", "content": "Did you adopt the cat?"},
                {"role": "assistant", "speaker": "Maya", "content": "Yes!! We called him Pixel."},
            ],
        },
    )
    assert response.status_code == 201, response.text
    hits = client.post("/api/search", json={"query": "Did Maya adopt a cat?"}).json()["results"]
    assert {h["text"]: h["speaker"] for h in hits} == {
        "Did you adopt the cat?": "Sam",
        "Yes!! We called him Pixel.": "Maya",
    }
    pack = client.post("/api/context/pack", json={"query": "Maya's cat"}).json()
    assert {(i["speaker"], i["role"]) for i in pack["items"]} == {
        ("Sam", "user"),
        ("Maya", "assistant"),
    }
