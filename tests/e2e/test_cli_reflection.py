"""``tessera reflect`` and ``tessera candidates`` as a user runs them: a real process."""

import json
from pathlib import Path

import pytest

from tests.e2e.test_cli import _run

pytestmark = pytest.mark.slow


def test_reflect_list_accept_and_reject(tmp_path: Path) -> None:
    out = _run(tmp_path, "remember", "Decision: ship weekly. TODO rotate the keys.", "--json")
    assert out.returncode == 0, out.stderr
    sid = json.loads(out.stdout)["source_id"]
    out = _run(tmp_path, "reflect", sid)
    assert out.returncode == 0, out.stderr
    assert "Read 1 source(s); 2 candidate(s)" in out.stdout and "decision" in out.stdout
    out = _run(tmp_path, "candidates", "list", "--state", "pending", "--json")
    listed = json.loads(out.stdout)["candidates"]
    decision = next(c["id"] for c in listed if c["type"] == "decision")
    task = next(c["id"] for c in listed if c["type"] == "task")
    out = _run(tmp_path, "candidates", "accept", decision)
    assert out.returncode == 0, out.stderr
    assert f"Candidate {decision} is accepted" in out.stdout and "entity" in out.stdout
    assert "rejected" in _run(tmp_path, "candidates", "reject", task).stdout
    again = _run(tmp_path, "candidates", "defer", task)
    assert again.returncode == 1 and "transition_not_allowed" in again.stderr
    crossing = _run(tmp_path, "candidates", "accept")
    assert crossing.returncode == 2 and "invalid_request" in crossing.stderr
    empty = _run(tmp_path, "reflect", sid, "")  # the store's 502 before; now the request's
    assert empty.returncode == 2 and "invalid_request" in empty.stderr, empty.stderr
    assert "empty" in empty.stderr


def test_wake(tmp_path: Path) -> None:
    out = _run(tmp_path, "remember", "Decision: ship weekly. TODO rotate the keys.", "--json")
    sid = json.loads(out.stdout)["source_id"]
    out = _run(tmp_path, "wake", "--budget", "300")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("Wake pack: ") and sid in out.stdout
    pack = json.loads(_run(tmp_path, "wake", "--json").stdout)
    assert pack["items"][0]["source_ids"] == [sid] and pack["token_count"] <= 1200
    bad = _run(tmp_path, "wake", "--budget", "5000")
    assert bad.returncode != 0 and "budget_out_of_range" in bad.stderr
