"""The embedding lane over HTTP: writes return before their vectors, ``wait`` asks for them."""

from typing import Any


def test_wait_indexed_returns_once_the_memory_is_found_by_meaning(client: Any) -> None:
    response = client.post(
        "/api/memory/remember",
        json={"content": "The harbour ferry leaves at seven.", "wait": "indexed"},
    )
    assert response.status_code == 201, response.text
    assert response.json()["embedding"] == "indexed"
    found = client.post("/api/search", json={"query": "harbour ferry"}).json()["results"]
    assert found[0]["source_id"] == response.json()["source_id"]
    assert found[0]["signals"]["vector_rank"] == 1


def test_a_plain_remember_is_found_by_its_words_at_once(client: Any) -> None:
    response = client.post("/api/memory/remember", json={"content": "Quinoa salad for Thursday."})
    assert response.status_code == 201, response.text
    assert response.json()["embedding"] in ("pending", "indexed")
    found = client.post("/api/search", json={"query": "quinoa salad"}).json()["results"]
    assert found[0]["source_id"] == response.json()["source_id"]
    assert found[0]["signals"]["lexical_rank"] == 1


def test_an_unknown_wait_is_refused_with_a_reason(client: Any) -> None:
    response = client.post("/api/memory/remember", json={"content": "x y z", "wait": "forever"})
    assert response.status_code == 400
    assert response.json()["error"]["reason"]


def test_the_status_shows_the_embedding_queue(client: Any) -> None:
    client.post("/api/memory/remember", json={"content": "Lane status check.", "wait": "indexed"})
    status = client.get("/api/status").json()
    home = next(o for o in status["organisations"] if o["org_id"] == "local")
    assert home["embedding_pending"] == 0
    assert home["embedding_failed"] == 0
    assert home["embedding_lag_seconds"] == 0.0
    assert status["embedding_queue_depth"] >= 0
