"""``tessera share`` as a user runs it: a real process, preview first, --apply to share."""

import json
from pathlib import Path

import pytest

from tests.e2e.test_cli import _run

pytestmark = pytest.mark.slow


def test_share_previews_and_applies_only_with_apply(tmp_path: Path) -> None:
    out = _run(tmp_path, "remember", "The office closes at six on Fridays.", "--json")
    assert out.returncode == 0, out.stderr
    sid = json.loads(out.stdout)["source_id"]
    closed = _run(tmp_path, "share", sid, "--to", "organization", "--apply")
    assert closed.returncode == 4 and "refused (scope_disabled)" in closed.stdout
    made = _run(tmp_path, "admin", "space", "create", "--scope", "organization", "--enable-writes")
    assert made.returncode == 0, made.stderr
    out = _run(tmp_path, "share", sid, "--to", "organization")
    assert out.returncode == 0, out.stderr
    assert "-> organization: allowed" in out.stdout and "--apply" in out.stdout
    assert "office" not in out.stdout
    out = _run(tmp_path, "share", sid, "--to", "organization", "--apply", "--json")
    assert out.returncode == 0, out.stderr
    shared = json.loads(out.stdout)
    assert shared["to_space"] == "organization" and shared["shared_id"] != sid
    found = json.loads(_run(tmp_path, "recall", "office closes", "--json").stdout)["results"]
    assert {h["source_id"] for h in found} == {sid, shared["shared_id"]}
