"""Derived memory over HTTP, on the fakes and on embedded SurrealDB.

Includes the v0.7 fixture ``post-reflection-recall``: after reflecting on a
seeded session and accepting its decision, the question is answered through
the promoted native record, with its raw source ids, and the answering turn
carries the ``entity`` signal (it was reached through the record's mention,
not through raw search alone).
"""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.test_http_trust import Site, ok, open_site, user_key

PROPOSE = "/api/memory/candidates/propose"
SESSION = {
    "turns": [
        {"role": "user", "speaker": "Maya", "content": "Let's talk about the new service."},
        {"role": "assistant", "content": "Sure. What is open?"},
        {"role": "user", "speaker": "Maya", "content": "We decided to go with SurrealDB."},
        {"role": "user", "speaker": "Maya", "content": "I will write the migration guide."},
    ]
}


@pytest.fixture(params=["fakes", "surrealdb"])
def http(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Site]:
    with open_site(request.param, tmp_path) as site:
        yield site


def _reason(response: Any) -> str:
    reason: str = response.json()["error"]["reason"]
    return reason


def _decision(site: Site, key: str, sid: str) -> dict[str, Any]:
    made = ok(site.call(key, "POST", "/api/memory/reflect", json={"source_ids": [sid]}))
    decision: dict[str, Any] = next(c for c in made["candidates"] if c["type"] == "decision")
    return decision


def test_post_reflection_recall(http: Site) -> None:
    ana = user_key(http, "ana")
    sid = ok(http.call(ana, "POST", "/api/memory/remember", json=SESSION))["source_id"]
    question = {"query": "Which database decision was made?"}
    before = ok(http.call(ana, "POST", "/api/search", json=question))
    assert before["derived"] == []
    assert all(h["signals"]["entity_rank"] is None for h in before["results"])

    made = ok(http.call(ana, "POST", "/api/memory/reflect", json={"source_ids": [sid]}))
    assert made["sources"] == 1 and made["skipped"] == []
    decision = next(c for c in made["candidates"] if c["type"] == "decision")
    assert set(decision) >= {
        "id",
        "type",
        "text",
        "source_ids",
        "spans",
        "confidence",
        "state",
        "suggested_scope",
    }
    assert decision["state"] == "pending" and decision["source_ids"] == [sid]
    listed = ok(http.call(ana, "GET", "/api/memory/candidates", params={"state": "pending"}))
    assert decision["id"] in [c["id"] for c in listed["candidates"]]

    accepted = ok(
        http.call(ana, "POST", f"/api/memory/candidates/{decision['id']}/accept", json={})
    )
    assert accepted["candidate"]["state"] == "accepted"
    (record,) = accepted["promoted"]
    assert record["kind"] == "entity" and record["source_ids"] == [sid]

    after = ok(http.call(ana, "POST", "/api/search", json=question))
    (derived,) = after["derived"]
    assert derived["entity_id"] == record["id"] and derived["source_ids"] == [sid]
    assert derived["name"] == "We decided to go with SurrealDB."
    answer = next(h for h in after["results"] if h["signals"]["entity_rank"] == 1)
    assert answer["source_id"] == sid and answer["text"] == "We decided to go with SurrealDB."
    assert answer["chunk_id"] in derived["chunk_ids"]
    pack = ok(http.call(ana, "POST", "/api/context/pack", json=question))
    assert [d["entity_id"] for d in pack["derived"]] == [record["id"]]
    # someone who cannot read the session gets neither the record nor the candidate
    bob = user_key(http, "bob")
    assert ok(http.call(bob, "POST", "/api/search", json=question))["derived"] == []
    assert ok(http.call(bob, "GET", "/api/memory/candidates"))["candidates"] == []
    gone = http.call(bob, "POST", f"/api/memory/candidates/{decision['id']}/reject")
    assert gone.status_code == 404


def test_review_states_and_scope_crossing(http: Site) -> None:
    ana = user_key(http, "ana")
    space = http.admin(
        "POST", "/api/admin/spaces", json={"scope": "project", "scope_key": "apollo"}
    )
    http.admin(
        "POST",
        f"/api/admin/spaces/{space['space_id']}/members",
        json={"principal": "ana", "role": "writer"},
    )
    sid = ok(http.call(ana, "POST", "/api/memory/remember", json=SESSION))["source_id"]
    shared = ok(
        http.call(
            ana,
            "POST",
            "/api/memory/remember",
            json={**SESSION, "scope": "project", "scope_key": "apollo"},
        )
    )["source_id"]
    decision = _decision(http, ana, sid)
    base = f"/api/memory/candidates/{decision['id']}"
    assert ok(http.call(ana, "POST", base + "/defer"))["candidate"]["state"] == "deferred"
    again = http.call(ana, "POST", base + "/defer")
    assert again.status_code == 409 and _reason(again) == "transition_not_allowed"

    # a candidate citing a private and a project session: mixed scopes
    proposed = ok(
        http.call(
            ana,
            "POST",
            "/api/memory/candidates/propose",
            json={
                "candidates": [
                    {
                        "type": "fact",
                        "text": "Both teams use SurrealDB.",
                        "spans": [
                            {"source_id": sid, "start": 0, "end": 4, "quote": "Maya"},
                            {"source_id": shared, "start": 0, "end": 4},
                        ],
                    },
                    {
                        "type": "fact",
                        "text": "A made-up quote.",
                        "spans": [{"source_id": sid, "start": 0, "end": 4, "quote": "Nope"}],
                    },
                ]
            },
        )
    )
    (mixed,) = proposed["candidates"]
    assert mixed["mixed_scope"] is True and mixed["extractor"] == "caller"
    assert [(r["index"], r["reason"]) for r in proposed["refused"]] == [(1, "span_mismatch")]
    crossing = http.call(ana, "POST", f"/api/memory/candidates/{mixed['id']}/accept", json={})
    assert crossing.status_code == 403
    assert _reason(crossing) == "scope_crossing_requires_promotion"
    promoted = ok(
        http.call(
            ana,
            "POST",
            f"/api/memory/candidates/{mixed['id']}/accept",
            json={"promote_to_scope": "project", "scope_key": "apollo"},
        )
    )
    assert promoted["candidate"]["promoted_scope"] == "project/apollo"
    # a broader target the key may not write
    refused = http.call(ana, "POST", base + "/accept", json={"promote_to_scope": "organization"})
    assert refused.status_code == 403 and _reason(refused) == "scope_disabled"
    assert ok(http.call(ana, "POST", base + "/reject"))["candidate"]["state"] == "rejected"


def test_bad_reflect_requests(http: Site) -> None:
    ana = user_key(http, "ana")
    for body, status, reason in (
        ({}, 422, "invalid_request"),
        ({"source_ids": ["x"], "extractor": "llm"}, 422, "llm_not_configured"),
        ({"space": "project"}, 422, "missing_scope_key"),
        ({"space": "project/none"}, 403, "unverified_membership"),
        ({"source_ids": ["x"], "bogus": 1}, 400, "unknown_field"),
    ):
        answer = http.call(ana, "POST", "/api/memory/reflect", json=body)
        assert (answer.status_code, _reason(answer)) == (status, reason), body
    skipped = ok(http.call(ana, "POST", "/api/memory/reflect", json={"source_ids": ["x"]}))
    assert skipped["skipped"] == [{"source_id": "x", "reason": "not_found"}]
    bad = http.call(ana, "GET", "/api/memory/candidates", params={"limit": 0})
    assert bad.status_code == 422


def test_empty_ids_and_broken_relations_are_refused_with_a_reason(http: Site) -> None:
    ana = user_key(http, "ana")
    sid = ok(http.call(ana, "POST", "/api/memory/remember", json=SESSION))["source_id"]
    fact = {
        "type": "fact",
        "text": "Maya chose SurrealDB.",
        "spans": [{"source_id": sid, "start": 0, "end": 4}],
    }
    for path, body in (
        ("/api/memory/reflect", {"source_ids": [""]}),
        ("/api/memory/reflect", {"source_ids": [sid, "  "]}),
        (PROPOSE, {"candidates": [{**fact, "spans": [{"source_id": "", "start": 0, "end": 4}]}]}),
        (PROPOSE, {"candidates": [{**fact, "supersedes": [""]}]}),
    ):
        answer = http.call(ana, "POST", path, json=body)
        assert (answer.status_code, _reason(answer)) == (422, "invalid_request"), body
        assert "empty" in answer.json()["error"]["detail"]
    # a relation's own rules refuse that candidate, not the request as malformed
    relation = {
        "subject": " ",
        "subject_type": "person",
        "predicate": "chose",
        "object": "SurrealDB",
        "object_type": "artifact",
    }
    proposed = ok(
        http.call(
            ana,
            "POST",
            PROPOSE,
            json={"candidates": [{**fact, "type": "relationship", "relation": relation}, fact]},
        )
    )
    assert [(r["index"], r["reason"]) for r in proposed["refused"]] == [(0, "invalid_request")]
    assert "subject" in proposed["refused"][0]["detail"]
    assert len(proposed["candidates"]) == 1


def test_wake_pack_over_http(http: Site) -> None:
    ana, bob = user_key(http, "ana"), user_key(http, "bob")
    sid = ok(http.call(ana, "POST", "/api/memory/remember", json=SESSION))["source_id"]
    fresh = ok(http.call(ana, "POST", "/api/context/wake", json={}))
    assert [i["source_ids"] for i in fresh["items"]] == [[sid]]
    assert fresh["token_budget"] == 1200 and fresh["items"][0]["section"] == "recent"
    decision = _decision(http, ana, sid)
    ok(http.call(ana, "POST", f"/api/memory/candidates/{decision['id']}/accept", json={}))
    pack = ok(http.call(ana, "POST", "/api/context/wake", json={"token_budget": 200}))
    first = pack["items"][0]
    assert first["section"] == "decisions" and first["source_ids"] == [sid]
    assert first["entity_id"] and first["reason"].startswith("active decision")
    assert pack["token_count"] <= 200 and pack["rendered"].startswith("## Active decisions")
    assert ok(http.call(bob, "POST", "/api/context/wake", json={}))["items"] == []
    for body, status, reason in (
        ({"token_budget": 1201}, 422, "budget_out_of_range"),
        ({"space": "project/none"}, 403, "unverified_membership"),
        ({"query": "x"}, 400, "unknown_field"),
    ):
        answer = http.call(ana, "POST", "/api/context/wake", json=body)
        assert (answer.status_code, _reason(answer)) == (status, reason), body
