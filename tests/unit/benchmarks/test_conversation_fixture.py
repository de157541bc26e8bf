"""The conversation fixture: rebuilt exactly from its generator, big enough, balanced."""

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from benchmarks.conversations._facts_heldout import HELDOUT
from benchmarks.conversations.generate import (
    FIXTURE,
    HELDOUT_FIXTURE,
    HELDOUT_SEED,
    PATTERNS,
    build,
    render,
)


def test_the_committed_fixture_is_what_the_generator_writes() -> None:
    assert FIXTURE.read_text(encoding="utf-8") == render(build())
    assert HELDOUT_FIXTURE.read_text(encoding="utf-8") == render(build(HELDOUT_SEED, HELDOUT))


def test_the_held_out_split_shares_no_question_or_fact_wording_with_the_dev_split() -> None:
    dev = json.loads(FIXTURE.read_text(encoding="utf-8"))
    held = json.loads(HELDOUT_FIXTURE.read_text(encoding="utf-8"))
    asked = {q["question"] for q in dev["questions"]}
    assert not asked & {q["question"] for q in held["questions"]}

    def evidence(fixture: dict[str, Any]) -> set[str]:
        turns = {
            t["turn_id"]: t["text"]
            for c in fixture["conversations"]
            for s in c["sessions"]
            for t in s["turns"]
        }
        return {turns[e] for q in fixture["questions"] for e in q["evidence"]}

    assert not evidence(dev) & evidence(held)


@pytest.mark.parametrize("path", [FIXTURE, HELDOUT_FIXTURE], ids=["dev", "heldout"])
def test_the_fixture_is_large_enough_and_balanced(path: Path) -> None:
    fixture = json.loads(path.read_text(encoding="utf-8"))
    conversations = fixture["conversations"]
    turns = {t["turn_id"]: t for c in conversations for s in c["sessions"] for t in s["turns"]}
    assert len(conversations) >= 12
    assert len(turns) >= 600
    assert all(len(c["speakers"]) == 2 and len(c["sessions"]) > 1 for c in conversations)
    questions = fixture["questions"]
    assert len(questions) >= 120
    shares = Counter(q["pattern"] for q in questions)
    assert set(shares) == set(PATTERNS)
    assert max(shares.values()) - min(shares.values()) <= 2
    for q in questions:
        assert q["evidence"], q["question_id"]
        assert all(t in turns and t.startswith(q["conversation_id"]) for t in q["evidence"])
        assert "{" not in q["question"]
    # a list question's evidence spans sessions; an update's evidence comes after what it replaces
    for q in questions:
        if q["pattern"] == "cross_session_list":
            assert len({t.rsplit("-", 1)[0] for t in q["evidence"]}) == 3
        if q["kind"] == "update":
            assert q["superseded"]
            assert q["superseded"][0].split("-")[1] < q["evidence"][0].split("-")[1]
