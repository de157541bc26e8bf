"""``tessera synthesize`` as a user runs it: a real process over the real embedded store."""

import json
from pathlib import Path

import pytest

from tests.e2e.test_cli import _run

pytestmark = pytest.mark.slow


def test_synthesize_all_stages_and_one_stage(tmp_path: Path) -> None:
    lunch = "Lunch on Friday: the team decided on pizza because the cafe is closed."
    ids = []
    for note in (
        "The storage engine keeps every source verbatim before deriving chunks.",
        "The team decided to use SurrealDB because the storage engine runs embedded.",
        lunch,
    ):
        out = _run(tmp_path, "remember", note, "--json")
        assert out.returncode == 0
        ids.append(json.loads(out.stdout)["source_id"])
    doc = tmp_path / "doc.md"
    out = _run(tmp_path, "synthesize", "the storage engine", "--type", "brief", "--out", str(doc))
    assert out.returncode == 0, out.stderr
    assert "Verification: passed" in out.stdout and "citation coverage 100%" in out.stdout
    markdown = doc.read_text(encoding="utf-8")
    assert markdown.startswith("# the storage engine") and "verbatim" in markdown
    assert "pizza" not in markdown
    # the lunch mail was in a section's pack: the run says it was left out, and why
    assert f"source {ids[2]} (does not bear on the question" in out.stdout

    out = _run(tmp_path, "synthesize", "plan", "the storage engine", "--json")
    assert out.returncode == 0, out.stderr
    run_id = json.loads(out.stdout)["run_id"]
    out = _run(tmp_path, "synthesize", "plan", "the storage engine")  # for a person
    assert out.returncode == 0 and out.stdout.startswith("Run "), out.stderr
    assert " 1. Summary: " in out.stdout and "Next: tessera synthesize sections" in out.stdout
    out = _run(tmp_path, "synthesize", "sections", run_id)
    assert out.returncode == 0 and "snippet(s)" in out.stdout and "{" not in out.stdout
    out = _run(tmp_path, "synthesize", "verify", run_id)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("Verification: ")
    out = _run(tmp_path, "synthesize", "draft", "no-such-run")
    assert out.returncode == 2 and "not_found" in out.stderr
