"""``tessera synthesize`` as a user runs it: a real process over the real embedded store."""

import json
from pathlib import Path

import pytest

from tests.e2e.test_cli import _run

pytestmark = pytest.mark.slow


def test_synthesize_all_stages_and_one_stage(tmp_path: Path) -> None:
    for note in (
        "The storage engine keeps every source verbatim before deriving chunks.",
        "The team decided to use SurrealDB because the storage engine runs embedded.",
    ):
        assert _run(tmp_path, "remember", note).returncode == 0
    doc = tmp_path / "doc.md"
    out = _run(tmp_path, "synthesize", "the storage engine", "--type", "brief", "--out", str(doc))
    assert out.returncode == 0, out.stderr
    assert "Verification: passed" in out.stdout and "citation coverage 100%" in out.stdout
    markdown = doc.read_text(encoding="utf-8")
    assert markdown.startswith("# the storage engine") and "verbatim" in markdown

    out = _run(tmp_path, "synthesize", "plan", "the storage engine", "--json")
    assert out.returncode == 0, out.stderr
    run_id = json.loads(out.stdout)["run_id"]
    out = _run(tmp_path, "synthesize", "verify", run_id)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("Verification: ")
    out = _run(tmp_path, "synthesize", "draft", "no-such-run")
    assert out.returncode == 2 and "not_found" in out.stderr
