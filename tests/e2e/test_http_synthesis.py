"""Synthesis over HTTP: each stage alone, all at once, and the errors a caller can cause."""

from typing import Any

from litestar.testing import TestClient

NOTES = [
    "The storage engine keeps every source verbatim before deriving chunks.",
    "Components of the storage engine are the store, the index and the audit log.",
    "The team decided to use SurrealDB because it runs embedded.",
    "An open question is how the storage engine should compact its log.",
]


def _seed(client: TestClient) -> list[str]:  # type: ignore[type-arg]
    ids = []
    for note in NOTES:
        response = client.post("/api/memory/remember", json={"content": note})
        assert response.status_code == 201, response.text
        ids.append(response.json()["source_id"])
    return ids


def test_each_stage_alone(client: TestClient) -> None:  # type: ignore[type-arg]
    ids = _seed(client)
    plan = client.post("/api/synthesize/plan", json={"query": "the storage engine"})
    assert plan.status_code == 200, plan.text
    body: dict[str, Any] = plan.json()
    run_id = body["run_id"]
    assert body["outline"][0]["title"] == "Summary"
    sections = client.post("/api/synthesize/sections", json={"run_id": run_id}).json()
    assert {"source_ids", "snippets", "hidden_count", "denied_count"} <= set(
        sections["sections"][0]
    )
    draft = client.post("/api/synthesize/draft", json={"run_id": run_id}).json()
    assert draft["markdown"].startswith("# the storage engine")
    cited = {c for s in draft["sections"] for x in s["sentences"] for c in x["citations"]}
    assert cited and cited <= set(ids)
    verify = client.post("/api/synthesize/verify", json={"run_id": run_id}).json()
    assert verify["citation_coverage"] == 1.0
    assert {"status", "unsupported_claims", "gaps", "hidden_counts"} <= set(verify)
    remembered = client.post("/api/synthesize/remember", json={"run_id": run_id})
    assert remembered.status_code == 201, remembered.text
    source = client.get(f"/api/memory/sources/{remembered.json()['source_id']}")
    assert source.status_code == 200


def test_all_stages_at_once(client: TestClient) -> None:  # type: ignore[type-arg]
    _seed(client)
    response = client.post(
        "/api/synthesize",
        json={"query": "the storage engine", "output_type": "brief", "remember": True},
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert {"run_id", "plan", "sections", "draft", "verification", "artifact"} <= set(body)
    assert body["draft"]["markdown"]
    assert body["verification"]["status"] in ("passed", "passed_with_gaps")
    assert body["artifact"]["source_id"]


def test_caller_errors_are_4xx_with_reasons(client: TestClient) -> None:  # type: ignore[type-arg]
    cases = [
        ("/api/synthesize/draft", {"run_id": "nope"}, 404, "not_found"),
        ("/api/synthesize/plan", {"query": " "}, 422, "empty_query"),
        ("/api/synthesize/plan", {"query": "x", "audience": "team"}, 422, "invalid_request"),
        ("/api/synthesize/plan", {"query": "x", "output_type": "poem"}, 400, None),
        ("/api/synthesize/plan", {"query": "x", "surprise": 1}, 400, None),
        ("/api/synthesize/plan", {"query": "x", "audience": "principal:"}, 422, "invalid_request"),
        ("/api/synthesize/plan", {"query": "x", "audience": "space:team"}, 422, None),
        ("/api/synthesize/plan", {"query": "x", "audience": "principal:nobody"}, 404, "not_found"),
        ("/api/synthesize/plan", {"query": "x", "outline": ["t"] * 13}, 422, "invalid_request"),
        ("/api/synthesize/plan", {"query": "x", "outline": [" "]}, 422, "invalid_request"),
        (
            "/api/synthesize/plan",
            {"query": "x", "freshness": {"max_age_days": 0}},
            422,
            "invalid_request",
        ),
        ("/api/synthesize/plan", {"query": "x", "freshness": {"stale": 1}}, 400, None),
        ("/api/synthesize/verify", {"run_id": "../x?y"}, 404, "not_found"),
        ("/api/synthesize/remember", {}, 400, None),
        ("/api/synthesize/draft", {"run_id": "x", "drafter": "gpt"}, 422, "invalid_request"),
    ]
    for path, payload, status, reason in cases:
        response = client.post(path, json=payload)
        assert response.status_code == status, (path, payload, response.text)
        if reason:
            assert response.json()["error"]["reason"] == reason
    plan = client.post("/api/synthesize/plan", json={"query": "storage"}).json()
    response = client.post(
        "/api/synthesize/draft", json={"run_id": plan["run_id"], "drafter": "llm"}
    )
    assert response.status_code == 422
    assert response.json()["error"]["reason"] == "llm_not_configured"


def test_verify_never_returns_the_words_of_a_source_hidden_since_the_draft(
    client: TestClient,  # type: ignore[type-arg]
) -> None:
    _seed(client)
    secret = "The storage engine vault code is marmot-5521 for the ledger service."
    sid = client.post("/api/memory/remember", json={"content": secret}).json()["source_id"]
    run_id = client.post("/api/synthesize/plan", json={"query": "the storage engine"}).json()[
        "run_id"
    ]
    client.post("/api/synthesize/sections", json={"run_id": run_id})
    draft = client.post("/api/synthesize/draft", json={"run_id": run_id})
    assert "marmot-5521" in draft.text  # readable when drafted
    base = f"/api/memory/inspect/{sid}/corrections"
    body = {"action": "hide", "reason": "pasted by mistake"}
    token = client.post(base + "/preview", json=body).json()["preview_token"]
    applied = client.post(base, json={**body, "preview_token": token})
    assert applied.status_code == 200, applied.text
    verify = client.post("/api/synthesize/verify", json={"run_id": run_id})
    assert verify.status_code == 200, verify.text
    assert "marmot-5521" not in verify.text
    claims = verify.json()["unsupported_claims"]
    outside = [c for c in claims if c["reason"] == "cited_outside_pack"]
    assert outside and all(sid not in c["citations"] for c in outside)
